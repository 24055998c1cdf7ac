"""The approval routes: refusals (422 with every problem, 403, 409 across questions and
approvals), the 202 path with long-poll and cancel, rich decisions (edits), rules and audit."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest

from bridge import ApprovalDecided, QuestionId, SurfaceId, UserRef
from tests.harness import AGENT_TOKEN, SUB_TOKEN, make_config, running, until
from tests.pg import scratch_database, server_url
from tests.samples import DEPLOY

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}
ACTION: dict[str, Any] = {"action": "Delete the staging database", "tool": "db.drop",
                          "arguments": {"db": "staging"},
                          "argumentsSchema": {"type": "object", "required": ["db"],
                                              "properties": {"db": {"enum": ["staging", "dev"]}}}}
SMS = SurfaceId("webhook:sms:+100")


async def test_refusals_name_every_problem_and_the_session_rule_spans_both(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        bad = await http.post("/v1/sessions/main/approvals", headers=AUTH,
                              json={"action": "", "risk": "extreme", "bogus": 1})
        assert bad.status_code == 422
        assert {d["loc"] for d in bad.json()["details"]} == {"action", "risk", "bogus"}
        sub = await http.post("/v1/sessions/main/approvals", json=ACTION,
                              headers={"Authorization": f"Bearer {SUB_TOKEN}"})
        assert sub.status_code == 403 and "main" in sub.json()["details"][0]["msg"]
        question = await http.post("/v1/sessions/main/questions", json=DEPLOY, headers=AUTH)
        busy = await http.post("/v1/sessions/main/approvals", json=ACTION, headers=AUTH)
        assert busy.status_code == 409 and busy.json()["pendingId"] == question.json()["id"]
        created = await http.post("/v1/sessions/other/approvals", json=ACTION, headers=AUTH)
        assert created.status_code == 202
        ask = await http.post("/v1/sessions/other/questions", json=DEPLOY, headers=AUTH)
        assert ask.status_code == 409 and ask.json()["pendingId"] == created.json()["id"]


async def test_poll_cancel_and_read_back(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        created = (await http.post("/v1/sessions/main/approvals", json=ACTION,
                                   headers=AUTH)).json()
        assert created["status"] == "pending" and created["expiresAt"].endswith("Z")
        aid = created["id"]
        pending = await http.get(f"/v1/approvals/{aid}/result", params={"wait": "0.05"},
                                 headers=AUTH)
        assert pending.status_code == 202 and pending.json() == {"status": "pending"}
        cancelled = await http.post(f"/v1/approvals/{aid}/cancel", headers=AUTH)
        assert cancelled.json() == {"status": "no_answer", "reason": "cancelled"}
        record = (await http.get(f"/v1/approvals/{aid}", headers=AUTH)).json()
        assert record["status"] == "no_answer" and record["reason"] == "cancelled"
        assert record["request"]["arguments"] == {"db": "staging"} and record["kind"] == "approval"
        line = (await http.get("/v1/sessions/main/approvals", headers=AUTH)).json()
        assert [a["id"] for a in line["approvals"]] == [aid]
        assert (await http.get("/v1/approvals/q_nope", headers=AUTH)).status_code == 404
        audit = (await http.get("/v1/audit", headers=AUTH)).json()
        assert [e["kind"] for e in audit["entries"]] == ["requested", "decided"]
        assert (await http.get("/v1/audit/verify", headers=AUTH)).json()["ok"] is True
        assert (await http.get("/v1/audit", params={"since": "yesterday"},
                               headers=AUTH)).status_code == 422


async def test_an_edit_is_checked_against_the_schema_and_returned(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        aid = QuestionId((await http.post("/v1/sessions/main/approvals", json=ACTION,
                                          headers=AUTH)).json()["id"])
        receiver, hash_ = r.bridge.receiver, (await r.bridge.approvals.get(aid)).payload_hash

        def decided(**given: Any) -> ApprovalDecided:
            return ApprovalDecided(SMS, UserRef("+100"), aid, authorized=True, **given)

        wrong = await receiver.approval_decided(decided(decision="approve",
                                                        arguments={"db": "production"}))
        assert not wrong.accepted and "argumentsSchema" in (wrong.text or "")
        stale = await receiver.approval_decided(decided(decision="approve",
                                                        payload_hash="f" * 64))
        assert not stale.accepted and "out of date" in (stale.text or "")
        done = await receiver.approval_decided(decided(decision="approve", payload_hash=hash_,
                                                       arguments={"db": "dev"}))
        assert done.accepted and done.ended
        result = (await http.get(f"/v1/approvals/{aid}/result", headers=AUTH)).json()
        assert result["arguments"] == {"db": "dev"} and result["edited"] is True


async def test_any_arguments_rule_from_a_rich_surface(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        aid = QuestionId((await http.post("/v1/sessions/main/approvals", json=ACTION,
                                          headers=AUTH)).json()["id"])
        await r.bridge.receiver.approval_decided(ApprovalDecided(
            SMS, UserRef("+100"), aid, "allow", authorized=True, any_arguments=True))
        other = {**ACTION, "arguments": {"db": "dev"}}
        again = await http.post("/v1/sessions/main/approve", json=other, headers=AUTH)
        assert again.json()["scope"] == "rule" and again.json()["arguments"] == {"db": "dev"}
        rules = (await http.get("/v1/rules", headers=AUTH)).json()["rules"]
        assert rules[0]["anyArguments"] is True and rules[0]["tool"] == "db.drop"


async def test_event_hooks_carry_the_approval_record(tmp_path: Path) -> None:
    from aiohttp import web

    seen: list[dict[str, Any]] = []

    async def receive(request: web.Request) -> web.Response:
        seen.append(await request.json())
        return web.Response(status=204)

    app = web.Application()
    app.router.add_post("/hook", receive)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    hook = {"url": f"http://127.0.0.1:{runner.addresses[0][1]}/hook", "secret_env": "HOOK_SECRET"}
    try:
        async with running(make_config(tmp_path, events=[hook])) as r, r.http() as http:
            aid = (await http.post("/v1/sessions/main/approvals", json=ACTION,
                                   headers=AUTH)).json()["id"]
            await http.post(f"/v1/approvals/{aid}/cancel", headers=AUTH)
            await until(lambda: any(e["type"] == "approval.decided" for e in seen))
    finally:
        await runner.cleanup()
    types = [e["type"] for e in seen]
    assert "approval.created" in types and not any(t.startswith("question.") for t in types)
    decided = next(e for e in seen if e["type"] == "approval.decided")
    assert decided["approval"]["id"] == aid and "question" not in decided
    assert decided["approval"]["result"] == {"status": "no_answer", "reason": "cancelled"}


async def test_the_same_request_again_reattaches(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        first = await http.post("/v1/sessions/main/approvals", json=ACTION, headers=AUTH)
        again = await http.post("/v1/sessions/main/approvals", json=ACTION, headers=AUTH)
        assert again.status_code == 202 and again.json()["id"] == first.json()["id"]
        other = await http.post("/v1/sessions/main/approvals", headers=AUTH,
                                json={**ACTION, "arguments": {"db": "dev"}})
        assert other.status_code == 409


async def test_taps_vote_reject_asks_for_its_reason_and_skip_is_no_decision(
        tmp_path: Path) -> None:
    from bridge import ButtonPressed

    async with running(make_config(tmp_path)) as r, r.http() as http:
        aid = QuestionId((await http.post("/v1/sessions/main/approvals", json=ACTION,
                                          headers=AUTH)).json()["id"])

        def tap(action: Any, authorized: bool = True) -> ButtonPressed:
            return ButtonPressed(SMS, UserRef("+100"), aid, action, authorized)

        receiver = r.bridge.receiver
        reject = await receiver.button_pressed(tap(1))
        assert not reject.accepted and reject.text == 'Say why: reply "reject <reason>".'
        skip = await receiver.button_pressed(tap("skip"))
        assert not skip.accepted and (skip.text or "").startswith('Reply "approve"')
        stranger = await receiver.button_pressed(tap(0, authorized=False))
        assert not stranger.accepted
        approve = await receiver.button_pressed(tap(0))
        assert approve.accepted and approve.ended and approve.text == "Approved."
        result = (await http.get(f"/v1/approvals/{aid}/result", headers=AUTH)).json()
        assert result["status"] == "approved" and result["edited"] is False


async def test_an_agent_exports_its_own_audit_entries_and_verifies_the_whole_chain(
        tmp_path: Path) -> None:
    agents = [{"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main",
               "surfaces": ["webhook:sms:+100"]},
              {"name": "ops", "token_env": "SUB_TOKEN", "role": "main", "surfaces": ["web"]}]
    ops = {"Authorization": f"Bearer {SUB_TOKEN}"}
    async with running(make_config(tmp_path, agents=agents)) as r, r.http() as http:
        mine = (await http.post("/v1/sessions/main/approvals", json=ACTION, headers=AUTH)).json()
        await http.post(f"/v1/approvals/{mine['id']}/cancel", headers=AUTH)
        theirs = (await http.post("/v1/sessions/main/approvals", headers=ops,
                                  json={"action": "Rotate the API key", "arguments": {
                                      "key": "s3cret"}})).json()
        own = (await http.get("/v1/audit", headers=AUTH)).json()["entries"]
        assert {e["approvalId"] for e in own} == {mine["id"]}
        assert "s3cret" not in (await http.get("/v1/audit", headers=AUTH)).text
        other = (await http.get("/v1/audit", headers=ops)).json()["entries"]
        assert [e["approvalId"] for e in other] == [theirs["id"]]
        report = (await http.get("/v1/audit/verify", headers=AUTH)).json()
        assert report["ok"] is True and report["entries"] == 3


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_timeline_page_reads_its_approvals_in_a_fixed_number_of_reads(
        tmp_path: Path, backend: str) -> None:
    async with AsyncExitStack() as stack:
        store: dict[str, Any] = {}
        if backend == "postgres":
            if server_url() is None:
                pytest.skip("ASKBRIDGE_TEST_POSTGRES_URL=off")
            store = {"url": await stack.enter_async_context(scratch_database())}
        r = await stack.enter_async_context(running(make_config(tmp_path, store=store)))
        http = await stack.enter_async_context(r.http())
        ids = []
        for n in range(25):
            body = {**ACTION, "arguments": {"db": "staging" if n % 2 else "dev"}}
            created = await http.post("/v1/sessions/main/approvals", json=body, headers=AUTH)
            ids.append(QuestionId(created.json()["id"]))
            await http.post(f"/v1/approvals/{ids[-1]}/cancel", headers=AUTH)
        reads: list[str] = []
        real = r.bridge.store._rows  # type: ignore[attr-defined]

        async def counted(sql: str, args: Any = ()) -> Any:
            reads.append(sql)
            return await real(sql, args)

        r.bridge.store._rows = counted  # type: ignore[attr-defined]
        page = (await http.get("/v1/sessions/main/approvals", headers=AUTH)).json()
        assert len(page["approvals"]) == 25 and len(reads) <= 4, reads
        reads.clear()
        views = await r.bridge.reads.approval_views(ids)
        assert len(views) == 25 and len(reads) <= 4, reads
        assert all(v["status"] == "no_answer" for v in views.values())
