"""An edit under quorum in a Discord channel: a reply to a reminder posted before the edit, or
to the prompt the edit replaced, is about the old arguments — refused as stale (not counted for
the new ones, not met with silence); a reply to the new prompt counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.adapters.discord.support import ANSWERER, STRANGER, config, env, prompt_in
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
from tests.fakes.discord import FakeDiscord
from tests.harness import running, until


def _config(tmp: Path, fake: FakeDiscord) -> Any:
    """ana (the answerer) and budi must both approve; reminders only when fired by hand."""
    made = config(tmp, fake)
    checked = type(made).model_validate({
        **made.model_dump(), "people": [{"name": "ana", "discord": ANSWERER},
                                        {"name": "budi", "discord": STRANGER}],
        "approvals": QUORUM})
    return reminders_by_hand(checked)


async def _told(fake: FakeDiscord, reply_to: dict[str, Any]) -> str:
    """ana replies `approve` to `reply_to`; the bot's reply to her message."""
    said = await fake.user_message(fake.channel_id, ANSWERER, "approve", reply_to=reply_to)
    answer: dict[str, Any] = await until(lambda: next(
        (m for m in fake.in_channel(fake.channel_id)
         if (m.get("message_reference") or {}).get("message_id") == said["id"]), None))
    return str(answer["content"])


async def test_a_reply_to_a_reminder_or_prompt_from_before_an_edit_is_refused_as_stale(
        tmp_path: Path) -> None:
    fake = await FakeDiscord().start()
    try:
        async with running(_config(tmp_path, fake), env(fake)) as r:
            approval_id = await request_approval(r)
            old = await prompt_in(fake, r)
            await fire_first_reminder(r, approval_id)
            reminder = (await until(lambda: [m for m in fake.in_channel(fake.channel_id)
                                             if m["content"].startswith("Reminder:")]))[0]

            told = await budi_edits(r, f"discord:{fake.channel_id}", str(STRANGER), approval_id)
            assert "new arguments" in told, told
            new = (await until(lambda: [m for m in fake.in_channel(fake.channel_id)
                                        if '"replicas": 5' in str(m)
                                        and m["components"]]))[-1]

            assert await _told(fake, reminder) == STALE
            assert await _told(fake, old) == STALE
            found = await approval_record(r, approval_id)
            assert found["status"] == "pending"
            assert [v["user"] for v in found["votes"]] == [str(STRANGER)]

            await fake.user_message(fake.channel_id, ANSWERER, "approve", reply_to=new)
            done = await until(lambda: approval_ended(r, approval_id))
            assert done["result"]["status"] == "approved"
            assert done["result"]["arguments"] == EDITED
    finally:
        await fake.stop()
