"""An edit under quorum: it proposes new arguments, so approvals cast on the old ones stop
counting, every prompt is shown again with the new fingerprint, and a vote on the old one is
refused as stale."""

from __future__ import annotations

from pathlib import Path

from bridge.core.audit import verify
from bridge.model.canonical import payload_hash
from bridge.model.ids import QuestionId, SurfaceId, UserRef
from bridge.model.inbound import ApprovalDecided
from tests.adapters.webhook.test_webhook_approvals import (
    DEPLOY,
    PEOPLE,
    approvals,
    asked,
    bridge,
    reply,
    statuses,
)
from tests.harness import until

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
