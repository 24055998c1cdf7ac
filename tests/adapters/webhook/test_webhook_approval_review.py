"""Review findings on approvals, end to end over the webhook channel: who may decide, what a
rule allows later, and what a text reply decides."""

from __future__ import annotations

from pathlib import Path

from tests.adapters.webhook.approval_support import (
    AUTH,
    approvals,
    asked,
    bridge,
)


async def test_the_requesting_agent_cannot_approve_its_own_approval(tmp_path: Path) -> None:
    """The approval's id is its backing question's: the agent's own host-answer route must not
    be a way to decide it (no policy: one approval from any answerer decides)."""
    async with bridge(tmp_path) as (_, gw, http):
        call = await asked(http, gw)
        approval_id = approvals(gw)[0]["questionId"]
        own = await http.post(f"/v1/questions/{approval_id}/host-answer", headers=AUTH,
                              json={"answers": {"decision": ["Approve"]}})
        assert own.status_code in (200, 403, 404, 409), own.text
        assert not (own.status_code == 200 and own.json()["accepted"]), own.text
        record = (await http.get(f"/v1/approvals/{approval_id}", headers=AUTH)).json()
        assert record["status"] == "pending", record
        assert not call.done()
        await http.post(f"/v1/approvals/{approval_id}/cancel", headers=AUTH)
        await call
