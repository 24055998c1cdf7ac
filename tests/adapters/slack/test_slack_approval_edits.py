"""An edit under quorum in a Slack channel: the old prompt's thread (where its reminders were
posted) shows the old arguments, so an `approve` written there is refused as stale — not met
with silence, not counted for the new arguments; one in the new prompt's thread counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bridge import ApprovalDecided, QuestionId, SurfaceId, UserRef
from tests.adapters.slack.support import ANSWERER, slack_env
from tests.fakes.slack import FakeSlack, fake_slack, message_body
from tests.harness import AGENT_TOKEN, Running, make_config, running, until

SCALE: dict[str, Any] = {"action": "Scale the web deployment", "tool": "kubectl_scale",
                         "arguments": {"deployment": "web", "replicas": 3},
                         "timeoutSeconds": 3600}
EDITED = {"deployment": "web", "replicas": 5}
BUDI = "U0999"
STALE = ("The arguments of this request were changed by an edit since you saw them; decide on "
         "the new arguments as they are shown now.")


def _config(tmp: Path, fake: FakeSlack) -> Any:
    """ana (the channel's answerer) and budi must both approve; reminders only fired by hand."""
    section = {"base_url": fake.base_url, "answerers": [ANSWERER], "connect_timeout_seconds": 5}
    config = make_config(tmp, surfaces=["slack:C0123"], slack=section,
                         people=[{"name": "ana", "slack": ANSWERER},
                                 {"name": "budi", "slack": BUDI}],
                         approvals=[{"approvers": ["ana", "budi"], "required": 2}])
    agents = [config.agents[0].model_copy(update={"remind_after": [1800.0]}), *config.agents[1:]]
    return config.model_copy(update={"agents": agents})


async def _record(r: Running, approval_id: str) -> dict[str, Any]:
    async with r.http() as http:
        found: dict[str, Any] = (await http.get(f"/v1/approvals/{approval_id}", headers={
            "authorization": f"Bearer {AGENT_TOKEN}"})).json()
    return found


async def _said_in_thread(fake: FakeSlack, thread: str, text: str) -> str:
    """`text` from ana in `thread`; the note only she sees in answer."""
    notes = len(fake.called("chat.postEphemeral"))
    await fake.send_envelope("events_api", message_body("C0123", text, thread_ts=thread))
    note = await fake.wait_call("chat.postEphemeral", notes + 1)
    assert note["thread_ts"] == thread
    return str(note["text"])


async def test_approve_in_the_thread_of_the_prompt_an_edit_replaced_is_refused_as_stale(
        tmp_path: Path) -> None:
    async with fake_slack() as fake, running(_config(tmp_path, fake), slack_env()) as r:
        async with r.http() as http:
            response = await http.post("/v1/sessions/main/approvals", json=SCALE,
                                       headers={"authorization": f"Bearer {AGENT_TOKEN}"})
        approval_id = str(response.json()["id"])
        old = await fake.wait_posted()
        await until(lambda: r.bridge.store.pending_on_surface(SurfaceId("slack:C0123")))
        timer = (await r.bridge.store.timers_of(QuestionId(approval_id)))[0]
        await r.bridge.broker.reach.fire(timer)  # reminder 1, long before it is due
        reminder = await fake.wait_posted(2)
        assert reminder["thread_ts"] == old["ts"] and reminder["text"].startswith("Reminder:")

        told = await r.bridge.receiver.approval_decided(ApprovalDecided(
            SurfaceId("slack:C0123"), UserRef(BUDI), QuestionId(approval_id), "approve",
            authorized=False, arguments=EDITED))
        assert told.accepted and "new arguments" in (told.text or ""), told
        new = await fake.wait_posted(3)
        assert "5" in str(new["blocks"]) and new["thread_ts"] is None

        assert await _said_in_thread(fake, old["ts"], "approve") == STALE
        found = await _record(r, approval_id)
        assert found["status"] == "pending"
        assert [v["user"] for v in found["votes"]] == [BUDI]

        await fake.send_envelope("events_api", message_body("C0123", "approve",
                                                            thread_ts=new["ts"]))
        done = await until(lambda: _ended(r, approval_id))
        assert done["result"]["status"] == "approved"
        assert done["result"]["arguments"] == EDITED


async def _ended(r: Running, approval_id: str) -> dict[str, Any] | None:
    found = await _record(r, approval_id)
    return found if found["status"] != "pending" else None
