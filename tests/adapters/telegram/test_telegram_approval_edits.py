"""An edit under quorum in a Telegram chat: a text reply to a reminder posted before the edit,
or to the prompt the edit replaced, is about the old arguments — refused as stale (not counted
for the new ones, not met with silence); a reply to the new prompt counts."""

from __future__ import annotations

import asyncio
from typing import Any

from structlog.testing import capture_logs

from bridge import MessageRef, QuestionId, SurfaceId
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


async def test_a_prompt_on_its_way_during_an_edit_is_shown_again_and_a_reply_to_it_is_stale(
        tg: Tg, fake: FakeTelegram) -> None:
    """budi edits while Telegram has not yet answered the first prompt's send: the edit's reshow
    cannot see that prompt, so once recorded it is marked and shown again like the others."""
    async with running(_config(tg), tg.env) as r:
        fake.holds["sendMessage"] = held = asyncio.Event()
        approval_id = await request_approval(r)
        await fake.wait_for(lambda: fake.calls_of("sendMessage"))  # rendered, on the wire
        with capture_logs() as logged:
            told = await budi_edits(r, f"telegram:{DM['id']}", str(STRANGER["id"]), approval_id)
            assert "new arguments" in told, told
            await until(lambda: [e for e in logged if e["event"] == "approval_reshown"])
        assert [e["surfaces"] for e in logged if e["event"] == "approval_reshown"] == [0]
        del fake.holds["sendMessage"]
        held.set()
        new = await fake.sent(DM["id"], lambda m: keyboard(m) and '"replicas": 5' in m["text"])
        old = next(m for (c, _), m in fake.messages.items()
                   if c == DM["id"] and '"replicas": 3' in m["text"])
        assert "Edited by" in (await fake.wait_for(lambda: next(
            (m for m in fake.calls_of("editMessageText") if m["message_id"] == old["message_id"]),
            None)))["text"]

        said = await fake.say(DM, OWNER, "approve", reply_to=old)
        assert await _told(fake, said) == STALE
        await fake.say(DM, OWNER, "approve", reply_to=new)
        done = await until(lambda: approval_ended(r, approval_id))
        assert done["result"]["status"] == "approved"
        assert done["result"]["arguments"] == EDITED


async def test_a_prompt_recorded_just_before_an_edit_is_shown_again_once(
        tg: Tg, fake: FakeTelegram) -> None:
    """The first prompt's record commits, and budi's edit comes before that prompt's own check
    for an edit (`shown_late`): the edit's reshow finds it delivered and shows it again, and
    the late check finds it marked already and leaves it. One new prompt, not two."""
    async with running(_config(tg), tg.env) as r:
        outbound = r.bridge.broker.outbound
        real, first = outbound.shown_late, asyncio.Event()
        reached, checked, go_on = asyncio.Event(), asyncio.Event(), asyncio.Event()
        assert real is not None

        async def late(record: Any, delivery: Any) -> None:
            if first.is_set():  # the new prompt's own check: as it is
                await real(record, delivery)
                return
            first.set()
            reached.set()
            await go_on.wait()
            await real(record, delivery)
            checked.set()

        outbound.shown_late = late
        approval_id = await request_approval(r)
        await reached.wait()  # the first prompt is recorded, its check not yet made
        with capture_logs() as logged:
            told = await budi_edits(r, f"telegram:{DM['id']}", str(STRANGER["id"]), approval_id)
            assert "new arguments" in told, told
            await fake.sent(DM["id"], lambda m: keyboard(m) and '"replicas": 5' in m["text"])
            go_on.set()
            await checked.wait()
        assert [e["surfaces"] for e in logged if e["event"] == "approval_reshown"] == [1]
        shown = [c for c in fake.calls_of("sendMessage") if '"replicas": 5' in str(c["text"])]
        assert len(shown) == 1, shown


async def test_a_prompt_that_waited_for_its_turn_through_an_edit_shows_the_new_arguments(
        tg: Tg, fake: FakeTelegram) -> None:
    """A prompt still in line (the platform's limits) when budi edits is rendered when its turn
    comes, from the approval as it is then, not as it was asked."""
    async with running(_config(tg), tg.env) as r:
        approval_id = await request_approval(r)
        await delivered(r, DM["id"])
        asked = await r.bridge.store.get_question(QuestionId(approval_id))
        assert asked is not None
        await budi_edits(r, f"telegram:{DM['id']}", str(STRANGER["id"]), approval_id)
        await fake.sent(DM["id"], lambda m: keyboard(m) and '"replicas": 5' in m["text"])
        shown = len(fake.calls_of("sendMessage"))
        # The record the sender took at ask time, as a prompt that waited in line holds it.
        assert await r.bridge.broker.outbound.deliver_to(asked, SurfaceId(f"telegram:{DM['id']}"))
        late = fake.calls_of("sendMessage")[shown:]
        assert [c for c in late if '"replicas": 5' in str(c["text"])], late
        assert not [c for c in late if '"replicas": 3' in str(c["text"])], late
