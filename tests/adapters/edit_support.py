"""What the approval tests of the chat platforms share: a 2-of-2 approval of a scale-up, the
edit budi makes to it, asking for an approval and reading it as the agent does."""

from __future__ import annotations

from typing import Any

from bridge import ApprovalDecided, QuestionId, SurfaceId, UserRef
from bridge.runtime.config import BridgeConfig
from tests.harness import AGENT_TOKEN, Running

SCALE: dict[str, Any] = {"action": "Scale the web deployment", "tool": "kubectl_scale",
                         "arguments": {"deployment": "web", "replicas": 3},
                         "timeoutSeconds": 3600}
EDITED = {"deployment": "web", "replicas": 5}
STALE = ("The arguments of this request were changed by an edit since you saw them; decide on "
         "the new arguments as they are shown now.")
QUORUM = [{"approvers": ["ana", "budi"], "required": 2}]


def reminders_by_hand(config: BridgeConfig) -> BridgeConfig:
    """The agent's first reminder half an hour away: a test fires it itself."""
    agents = [config.agents[0].model_copy(update={"remind_after": [1800.0]}), *config.agents[1:]]
    return config.model_copy(update={"agents": agents})


async def request_approval(r: Running, body: dict[str, Any] = SCALE) -> str:
    """The agent asks for `body` (202, session main); the approval's id."""
    async with r.http() as http:
        response = await http.post("/v1/sessions/main/approvals", json=body,
                                   headers={"authorization": f"Bearer {AGENT_TOKEN}"})
    assert response.status_code == 202, response.text
    return str(response.json()["id"])


async def fire_first_reminder(r: Running, approval_id: str) -> None:
    """Reminder 1, long before it is due."""
    timer = (await r.bridge.store.timers_of(QuestionId(approval_id)))[0]
    await r.bridge.broker.reach.fire(timer)


async def budi_edits(r: Running, surface: str, budi: str, approval_id: str) -> str:
    """budi edits the arguments to EDITED (his edit is his approval); what he is told."""
    told = await r.bridge.receiver.approval_decided(ApprovalDecided(
        SurfaceId(surface), UserRef(budi), QuestionId(approval_id), "approve",
        authorized=False, arguments=EDITED))
    assert told.accepted, told
    return told.text or ""


async def approval_record(r: Running, approval_id: str) -> dict[str, Any]:
    async with r.http() as http:
        found: dict[str, Any] = (await http.get(f"/v1/approvals/{approval_id}", headers={
            "authorization": f"Bearer {AGENT_TOKEN}"})).json()
    return found


async def approval_ended(r: Running, approval_id: str) -> dict[str, Any] | None:
    """The approval once decided or ended (for `until`), else None."""
    found = await approval_record(r, approval_id)
    return found if found["status"] != "pending" else None
