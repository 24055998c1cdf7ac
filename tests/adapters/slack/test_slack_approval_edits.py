"""An edit under quorum in a Slack channel: the old prompt's thread (where its reminders were
posted) shows the old arguments, so an `approve` written there is refused as stale — not met
with silence, not counted for the new arguments; one in the new prompt's thread counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bridge import SurfaceId
from tests.adapters.edit_support import (
    EDITED,
    QUORUM,
    STALE,
    approval_ended,
    approval_record,
    budi_edits,
    fire_first_reminder,
    reminders_by_hand,
    request_approval,
)
from tests.adapters.slack.support import ANSWERER, slack_env
from tests.fakes.slack import FakeSlack, fake_slack, message_body
from tests.harness import make_config, running, until

BUDI = "U0999"


def _config(tmp: Path, fake: FakeSlack) -> Any:
    """ana (the channel's answerer) and budi must both approve; reminders only fired by hand."""
    section = {"base_url": fake.base_url, "answerers": [ANSWERER], "connect_timeout_seconds": 5}
    return reminders_by_hand(make_config(
        tmp, surfaces=["slack:C0123"], slack=section, approvals=QUORUM,
        people=[{"name": "ana", "slack": ANSWERER}, {"name": "budi", "slack": BUDI}]))


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
        approval_id = await request_approval(r)
        old = await fake.wait_posted()
        await until(lambda: r.bridge.store.pending_on_surface(SurfaceId("slack:C0123")))
        await fire_first_reminder(r, approval_id)
        reminder = await fake.wait_posted(2)
        assert reminder["thread_ts"] == old["ts"] and reminder["text"].startswith("Reminder:")

        assert "new arguments" in await budi_edits(r, "slack:C0123", BUDI, approval_id)
        new = await fake.wait_posted(3)
        assert "5" in str(new["blocks"]) and new["thread_ts"] is None

        assert await _said_in_thread(fake, old["ts"], "approve") == STALE
        found = await approval_record(r, approval_id)
        assert found["status"] == "pending"
        assert [v["user"] for v in found["votes"]] == [BUDI]

        await fake.send_envelope("events_api", message_body("C0123", "approve",
                                                            thread_ts=new["ts"]))
        done = await until(lambda: approval_ended(r, approval_id))
        assert done["result"]["status"] == "approved"
        assert done["result"]["arguments"] == EDITED
