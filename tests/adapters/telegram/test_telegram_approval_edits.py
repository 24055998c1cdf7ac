"""An edit under quorum in a Telegram chat: a text reply to a reminder posted before the edit,
or to the prompt the edit replaced, is about the old arguments — refused as stale (not counted
for the new ones, not met with silence); a reply to the new prompt counts."""

from __future__ import annotations

import asyncio
from typing import Any

from bridge import MessageRef, SurfaceId
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
from tests.adapters.telegram.support import DM, OWNER, STRANGER, Tg, delivered, keyboard
from tests.fakes.telegram import FakeTelegram
from tests.harness import make_config, running, until


def _config(tg: Tg) -> Any:
    """ana (the chat's owner) and budi must both approve; reminders only when fired by hand."""
    people = [{"name": "ana", "telegram": [OWNER["id"]]},
              {"name": "budi", "telegram": [STRANGER["id"]]}]
    return reminders_by_hand(make_config(
        tg.tmp, surfaces=[f"telegram:{DM['id']}"], people=people, approvals=QUORUM,
        telegram=dict(tg.config(DM["id"]).section("telegram") or {})))


async def _told(fake: FakeTelegram, said: dict[str, Any]) -> str:
    """The text of the bot's reply to the person's message `said`."""
    def answer() -> str | None:
        return next((str(c["text"]) for c in fake.calls_of("sendMessage")
                     if (c.get("reply_parameters") or {}).get("message_id")
                     == said["message_id"]), None)
    found: str = await fake.wait_for(answer)
    return found


async def test_a_reply_to_a_reminder_or_prompt_from_before_an_edit_is_refused_as_stale(
        tg: Tg, fake: FakeTelegram) -> None:
    async with running(_config(tg), tg.env) as r:
        approval_id = await request_approval(r)
        await delivered(r, DM["id"])
        old = await fake.sent(DM["id"], keyboard)
        assert '"replicas": 3' in old["text"]
        await fire_first_reminder(r, approval_id)
        reminder = await fake.sent(DM["id"], lambda m: m["text"].startswith("Reminder:"))

        told = await budi_edits(r, f"telegram:{DM['id']}", str(STRANGER["id"]), approval_id)
        assert "new arguments" in told, told
        new = await fake.sent(DM["id"], lambda m: keyboard(m) and '"replicas": 5' in m["text"])

        said = await fake.say(DM, OWNER, "approve", reply_to=reminder)
        assert await _told(fake, said) == STALE
        said = await fake.say(DM, OWNER, "approve", reply_to=old)
        assert await _told(fake, said) == STALE
        found = await approval_record(r, approval_id)
        assert found["status"] == "pending"
        assert [v["user"] for v in found["votes"]] == [str(STRANGER["id"])]

        await fake.say(DM, OWNER, "approve", reply_to=new)
        done = await until(lambda: approval_ended(r, approval_id))
        assert done["result"]["status"] == "approved"
        assert done["result"]["arguments"] == EDITED


async def test_a_reminder_recorded_only_after_the_edit_is_still_about_the_old_arguments(
        tg: Tg, fake: FakeTelegram) -> None:
    """The edit marks the messages recorded so far; a reminder of the old arguments that Telegram
    took before the edit but whose record came after it keeps what it showed."""
    surface = SurfaceId(f"telegram:{DM['id']}")
    async with running(_config(tg), tg.env) as r:
        approval_id = await request_approval(r)
        await delivered(r, DM["id"])
        old = await fake.sent(DM["id"], keyboard)
        fake.holds["sendMessage"] = held = asyncio.Event()
        reminding = asyncio.create_task(fire_first_reminder(r, approval_id))
        await fake.wait_for(lambda: any(str(c["text"]).startswith("Reminder:")
                                        for c in fake.calls_of("sendMessage")))
        editing = asyncio.create_task(
            budi_edits(r, str(surface), str(STRANGER["id"]), approval_id))
        old_ref = MessageRef(f"{DM['id']}:{old['message_id']}")
        await until(lambda: r.bridge.store.replaced_shown(surface, old_ref))  # marks are in
        del fake.holds["sendMessage"]
        held.set()
        await asyncio.wait_for(reminding, 10)
        assert "new arguments" in await asyncio.wait_for(editing, 10)
        reminder = await fake.sent(DM["id"], lambda m: m["text"].startswith("Reminder:"))

        said = await fake.say(DM, OWNER, "approve", reply_to=reminder)
        assert await _told(fake, said) == STALE
        found = await approval_record(r, approval_id)
        assert [v["user"] for v in found["votes"]] == [str(STRANGER["id"])]
