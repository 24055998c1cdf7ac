"""Approvals on the webhook text channel end to end: the prompt (`kind: "approval"`, arguments in
full), replies that vote, quorum, four eyes, rules, expiry, and the audit chain behind them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
from structlog.testing import capture_logs

from bridge.core.audit import verify
from bridge.model.canonical import payload_hash
from bridge.model.ids import QuestionId, SurfaceId, UserRef
from bridge.model.inbound import ApprovalDecided
from tests.adapters.webhook.approval_support import (
    AUTH,
    DEPLOY,
    PEOPLE,
    approvals,
    asked,
    bridge,
    reply,
    statuses,
)
from tests.fakes.gateway import Gateway
from tests.harness import Running, until


async def test_approve_by_reply_returns_the_arguments_and_finalizes(tmp_path: Path) -> None:
    async with bridge(tmp_path) as (r, gw, http):
        call = await asked(http, gw)
        prompt = approvals(gw)[0]
        assert prompt["questionId"].startswith("q_")
        text = prompt["text"]
        assert "Deploy web to production" in text and "Tool: deploy" in text
        assert "Risk: high" in text and '"replicas": 3' in text and "1) Approve" in text
        told = await reply(http, "approve")
        assert told == {"accepted": True, "reply": "Approved."}
        result = (await call).json()
        assert result == {"status": "approved", "arguments": DEPLOY["arguments"], "edited": False,
                          "scope": "once",
                          "decidedBy": [{"surface": "webhook:sms:+100", "user": "+100"}]}
        await until(lambda: len(statuses(gw)) == 2)
        assert statuses(gw) == ["Approval: Approved by +100"] * 2
        record = (await http.get(f"/v1/approvals/{prompt['questionId']}", headers=AUTH)).json()
        assert record["status"] == "approved" and record["votes"][0]["decision"] == "approve"
        report = await verify(r.bridge.store)
        assert report.ok and report.entries == 3  # requested, voted, decided


async def test_reject_needs_a_reason_and_reports_it(tmp_path: Path) -> None:
    async with bridge(tmp_path) as (_, gw, http):
        call = await asked(http, gw)
        assert (await reply(http, "reject"))["accepted"] is False
        assert (await reply(http, "what is this?"))["reply"].startswith('Reply "approve"')
        told = await reply(http, "tolak terlalu berisiko")
        assert told == {"accepted": True, "reply": "Rejected."}
        assert (await call).json() == {
            "status": "rejected", "reason": "terlalu berisiko",
            "decidedBy": [{"surface": "webhook:sms:+100", "user": "+100"}]}
        await until(lambda: len(statuses(gw)) == 2)
        assert statuses(gw)[0] == "Approval: Rejected by +100: terlalu berisiko"


async def test_a_stale_payload_and_a_stranger_are_refused(tmp_path: Path) -> None:
    async with bridge(tmp_path, answerers=("ana",), people=PEOPLE) as (_, gw, http):
        call = await asked(http, gw)
        stale = await reply(http, "approve #0123456789ab")
        assert stale["accepted"] is False and "out of date" in stale["reply"]
        stranger = await reply(http, "approve", sender="+999")
        assert stranger["accepted"] is False and "Sorry" in stranger["reply"]
        assert not call.done()
        shown = approvals(gw)[0]["text"].split("Payload: #")[1][:12]
        assert (await reply(http, f"approve #{shown}"))["accepted"] is True
        assert (await call).json()["status"] == "approved"


async def test_two_of_three_counts_a_person_on_two_surfaces_once(tmp_path: Path) -> None:
    policy = {"tool": "deploy", "approvers": ["ana", "budi", "cita"], "required": 2}
    async with bridge(tmp_path, people=PEOPLE, approvals=[policy]) as (_, gw, http):
        call = await asked(http, gw)
        first = await reply(http, "approve")
        assert first == {"accepted": True, "reply": "Recorded: 1 of 2 approvals."}
        again = await reply(http, "1", sender="+102", conversation="+102")  # ana, her other number
        assert again["accepted"] is False and "already recorded" in again["reply"]
        assert not call.done()
        assert (await reply(http, "approve", sender="+101"))["reply"] == "Approved."
        result = (await call).json()
        assert [d["user"] for d in result["decidedBy"]] == ["+100", "+101"]
        await until(lambda: len(statuses(gw)) == 2)
        assert statuses(gw)[0] == "Approval: Approved by ana, budi"


async def test_four_eyes_keeps_the_owner_from_approving(tmp_path: Path) -> None:
    policy = {"approvers": ["ana", "budi"], "exclude_requester": True}
    agents = [{"name": "assistant", "token_env": "AGENT_TOKEN", "owner": "ana",
               "surfaces": ["webhook:sms:+100", "webhook:sms:+102"]}]
    async with bridge(tmp_path, people=PEOPLE, approvals=[policy], agents=agents) as (_, gw,
                                                                                     http):
        call = await asked(http, gw)
        own = await reply(http, "approve")
        assert own["accepted"] is False and "someone else" in own["reply"]
        assert (await reply(http, "setuju", sender="+101"))["accepted"] is True
        assert (await call).json()["decidedBy"] == [{"surface": "webhook:sms:+100",
                                                     "user": "+101"}]


async def test_allow_for_an_hour_approves_the_same_call_at_once(tmp_path: Path) -> None:
    async with bridge(tmp_path) as (r, gw, http):
        call = await asked(http, gw)
        told = await reply(http, "3")
        assert told["reply"] == "Approved; the same call is allowed for 1 hour."
        assert (await call).json()["scope"] == "once"
        await until(lambda: len(statuses(gw)) == 2)
        sent = len(gw.received)
        again = await http.post("/v1/sessions/main/approve", json=DEPLOY, headers=AUTH)
        assert again.json()["scope"] == "rule" and again.json()["status"] == "approved"
        other = {**DEPLOY, "arguments": {**DEPLOY["arguments"], "replicas": 9}}
        created = await http.post("/v1/sessions/main/approvals", json=other, headers=AUTH)
        assert created.status_code == 202 and created.json()["status"] == "pending"
        await until(lambda: len(approvals(gw)) == 4)
        assert len(gw.received) == sent + 2  # only the one with other arguments went out
        rules = (await http.get("/v1/rules", headers=AUTH)).json()["rules"]
        assert len(rules) == 1 and rules[0]["tool"] == "deploy"
        revoked = await http.post(f"/v1/rules/{rules[0]['id']}/revoke", headers=AUTH)
        assert revoked.json()["revokedAt"] is not None
        assert (await http.get("/v1/rules", headers=AUTH)).json()["rules"] == []
        kinds = [e.kind for e in await r.bridge.store.audit_entries()]
        assert kinds.count("rule_created") == 1 and kinds[-1] == "rule_revoked"
        assert (await verify(r.bridge.store)).ok


async def test_an_expired_approval_is_no_answer(tmp_path: Path) -> None:
    async with bridge(tmp_path) as (r, gw, http):
        created = (await http.post("/v1/sessions/main/approvals", json=DEPLOY,
                                   headers=AUTH)).json()
        await until(lambda: len(approvals(gw)) == 2)
        await r.bridge.broker.expire(created["id"])  # what its deadline does
        # Settled at once, before anyone reads it: the audit says so on its own.
        entries = await until(lambda: _decided(r))
        assert entries[-1].data["status"] == "no_answer"
        result = await http.get(f"/v1/approvals/{created['id']}/result",
                                params={"wait": "5"}, headers=AUTH)
        assert result.json() == {"status": "no_answer", "reason": "expired"}
        assert (await reply(http, "approve"))["accepted"] is False


async def _decided(r: Running) -> Any:
    entries = await r.bridge.store.audit_entries()
    return entries if entries and entries[-1].kind == "decided" else None


async def test_reminders_reach_an_approval_and_a_reply_to_one_votes(tmp_path: Path) -> None:
    agents = [{"name": "assistant", "token_env": "AGENT_TOKEN", "remind_after": [1],
               "surfaces": ["webhook:sms:+100"]}]
    async with bridge(tmp_path, agents=agents) as (_, gw, http):
        call = await asked_once(http, gw)
        reminder = (await until(lambda: [p for p in gw.received if p["kind"] == "reminder"]))[0]
        assert reminder["questionId"] == approvals(gw)[0]["questionId"]
        assert reminder["text"].startswith("Reminder: Approval")
        assert (await reply(http, "approve"))["accepted"] is True
        assert (await call).json()["status"] == "approved"


async def asked_once(http: httpx.AsyncClient, gw: Gateway) -> asyncio.Task[httpx.Response]:
    call = asyncio.create_task(http.post("/v1/sessions/main/approve", json=DEPLOY, headers=AUTH))
    await until(lambda: approvals(gw) or call.done())
    return call


EDITED = {**DEPLOY["arguments"], "replicas": 1}


async def test_an_edit_under_quorum_needs_approvals_of_the_new_arguments(tmp_path: Path) -> None:
    policy = {"tool": "deploy", "approvers": ["ana", "budi", "cita"], "required": 2}
    async with bridge(tmp_path, people=PEOPLE, approvals=[policy]) as (r, gw, http):
        call = await asked(http, gw)
        old = approvals(gw)[0]["text"].split("Payload: #")[1][:12]
        approval_id = QuestionId(approvals(gw)[0]["questionId"])
        assert (await reply(http, "approve"))["accepted"] is True  # ana, the original
        told = await r.bridge.receiver.approval_decided(ApprovalDecided(
            SurfaceId("webhook:sms:+100"), UserRef("+101"), approval_id, "approve", True,
            arguments=EDITED, payload_hash=old))
        assert told.accepted and "new arguments" in (told.text or "")
        assert not call.done()  # ana approved other arguments: 1 of 2 on budi's
        new = payload_hash(EDITED)[:12]
        await until(lambda: len(approvals(gw)) >= 4)  # shown again on both conversations
        again = approvals(gw)[2:]
        assert all(f"Payload: #{new}" in p["text"] and '"replicas": 1' in p["text"]
                   for p in again)
        assert statuses(gw) == ["Approval: Edited by budi: decide on the new arguments in the "
                                "next message."] * 2
        record = (await http.get(f"/v1/approvals/{approval_id}", headers=AUTH)).json()
        assert record["request"]["arguments"] == EDITED and record["payloadHash"][:12] == new
        stale = await reply(http, f"approve #{old}", sender="+103")
        assert stale["accepted"] is False and "changed by an edit" in stale["reply"]
        assert not call.done()
        assert (await reply(http, f"approve #{new}", sender="+103"))["reply"] == "Approved."
        result = (await call).json()
        assert result["status"] == "approved" and result["arguments"] == EDITED
        assert result["edited"] is True
        assert [d["user"] for d in result["decidedBy"]] == ["+101", "+103"]
        entries = await r.bridge.store.audit_entries()
        edits = [e for e in entries if e.kind == "edited"]
        assert len(edits) == 1 and edits[0].data["by"] == "budi"
        assert edits[0].data["arguments"] == EDITED
        assert (await verify(r.bridge.store)).ok


async def test_a_single_approver_still_approves_by_editing(tmp_path: Path) -> None:
    async with bridge(tmp_path) as (r, gw, http):
        call = await asked(http, gw)
        approval_id = QuestionId(approvals(gw)[0]["questionId"])
        told = await r.bridge.receiver.approval_decided(ApprovalDecided(
            SurfaceId("webhook:sms:+100"), UserRef("+100"), approval_id, "approve", True,
            arguments=EDITED))
        assert told.accepted and told.text == "Approved."
        result = (await call).json()
        assert result["arguments"] == EDITED and result["edited"] is True
        assert len(approvals(gw)) == 2  # decided at once: nothing shown again


async def test_an_approval_no_approver_can_reach_is_warned_about(tmp_path: Path) -> None:
    people = [*PEOPLE, {"name": "dewi", "telegram": 5}]
    policies = [{"tool": "deploy", "approvers": ["dewi"]}, {"approvers": ["budi"]}]
    async with bridge(tmp_path, people=people, approvals=policies) as (_, gw, http):
        with capture_logs() as said:
            call = await asked(http, gw)
        warned = [e for e in said if e["event"] == "approval_unreachable"]
        assert len(warned) == 1 and warned[0]["approvers"] == ["dewi"]
        assert warned[0]["log_level"] == "warning"
        await http.post(f"/v1/approvals/{approvals(gw)[0]['questionId']}/cancel", headers=AUTH)
        await call
        with capture_logs() as said:
            call = await asked(http, gw, {**DEPLOY, "tool": "restart"})  # budi: on sms
        assert not [e for e in said if e["event"] == "approval_unreachable"]
        await http.post(f"/v1/approvals/{approvals(gw)[-1]['questionId']}/cancel", headers=AUTH)
        await call


async def test_a_prompt_recorded_just_before_an_edit_is_shown_again_once(tmp_path: Path) -> None:
    """A webhook prompt is known by the approval's own id. The first one's record commits and
    budi's edit comes before that prompt's own check for an edit (`shown_late`): the edit's
    reshow shows both conversations the new arguments, and the late check, finding the claim
    for those arguments taken, sends nothing more. Two new prompts, not three."""
    policy = {"tool": "deploy", "approvers": ["ana", "budi", "cita"], "required": 2}
    async with bridge(tmp_path, people=PEOPLE, approvals=[policy]) as (r, gw, http):
        outbound = r.bridge.broker.outbound
        real, go_on, checked = outbound.shown_late, asyncio.Event(), asyncio.Event()
        checks: list[SurfaceId] = []
        assert real is not None

        async def late(record: Any, delivery: Any) -> None:
            checks.append(delivery.surface)
            if len(checks) > 1:  # the other conversation's check, as it is
                await real(record, delivery)
                return
            await go_on.wait()
            await real(record, delivery)
            checked.set()

        outbound.shown_late = late
        call = await asked(http, gw)
        approval_id = QuestionId(approvals(gw)[0]["questionId"])
        await until(lambda: len(checks) == 2)  # both prompts recorded: the edit sees both
        with capture_logs() as logged:
            told = await r.bridge.receiver.approval_decided(ApprovalDecided(
                SurfaceId("webhook:sms:+100"), UserRef("+101"), approval_id, "approve", True,
                arguments=EDITED))
            assert told.accepted and "new arguments" in (told.text or "")
            await until(lambda: [e for e in logged if e["event"] == "approval_reshown"])
            go_on.set()
            await checked.wait()
        assert [e["surfaces"] for e in logged if e["event"] == "approval_reshown"] == [2]
        again = [p for p in approvals(gw) if '"replicas": 1' in p["text"]]
        assert sorted(p["conversation"] for p in again) == ["+100", "+102"], again
        await http.post(f"/v1/approvals/{approval_id}/cancel", headers=AUTH)
        await call
