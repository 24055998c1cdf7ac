"""Telegram approvals beyond the contract suite: Edit sends the presser a signed link to the web
card (privately when pressed in a group, or says how to open a private chat first), and a
Reject request still takes its reason after a restart."""

from __future__ import annotations

from typing import Any

from tests.adapters.edit_support import approval_record, request_approval
from tests.adapters.telegram.support import DM, GROUP, OWNER, Tg, delivered
from tests.fakes.telegram import FakeTelegram
from tests.harness import Running, running, until

SCALE: dict[str, Any] = {"action": "Scale the web deployment", "tool": "kubectl_scale",
                         "arguments": {"deployment": "web", "replicas": 3}}


async def _press(fake: FakeTelegram, chat: int, label: str) -> dict[str, Any]:
    """Press `label` on the approval prompt in `chat` as the owner; the callback's answer."""
    prompt = await fake.sent(chat, lambda m: label in fake.buttons(m))
    query = await fake.tap(prompt, OWNER, label)
    answer: dict[str, Any] = await fake.wait_for(lambda: fake.callback_answer(query))
    return answer


def _url_buttons(fake: FakeTelegram, chat: int) -> list[dict[str, str]]:
    return [b for (c, _), m in fake.messages.items() if c == chat
            for row in (m.get("reply_markup") or {}).get("inline_keyboard", []) for b in row
            if "url" in b]


async def _holder(r: Running, url: str) -> tuple[str, str, str]:
    links = r.bridge.reads.links
    assert links is not None and "/l/" in url
    held = await links.check(url.rsplit("/l/", 1)[1])
    assert held is not None, url
    return held.question_id, held.surface, held.user


async def test_edit_in_a_private_chat_sends_the_presser_a_signed_link(tg: Tg,
                                                                     fake: FakeTelegram) -> None:
    async with running(tg.config(DM["id"]), tg.env) as r:
        approval_id = await request_approval(r, SCALE)
        await delivered(r, DM["id"])
        await _press(fake, DM["id"], "Edit")
        button = (await until(lambda: _url_buttons(fake, DM["id"])))[0]
        assert button["text"] == "Edit on the web"
        assert await _holder(r, button["url"]) == (approval_id, f"telegram:{DM['id']}",
                                                  str(OWNER["id"]))
        assert not [m for m in fake.markups.values() if m.get("force_reply")]
        assert (await approval_record(r, approval_id))["status"] == "pending"


async def test_edit_in_a_group_sends_the_link_privately_never_to_the_group(
        tg: Tg, fake: FakeTelegram) -> None:
    group = GROUP["id"]
    fake.add_chat(GROUP)
    async with running(tg.config(group, answerers=[OWNER["id"]]), tg.env) as r:
        approval_id = await request_approval(r, SCALE)
        await delivered(r, group)
        answer = await _press(fake, group, "Edit")
        assert answer["text"] == "I sent you the edit link in our private chat."
        button = (await until(lambda: _url_buttons(fake, OWNER["id"])))[0]
        assert await _holder(r, button["url"]) == (approval_id, f"telegram:{group}",
                                                  str(OWNER["id"]))
        # the person never started the bot: Telegram refuses, and they are told what to do
        fake.fail("sendMessage", 403, "Forbidden: bot can't initiate conversation with a user")
        answer = await _press(fake, group, "Edit")
        assert answer["show_alert"] and "open a private chat with me" in answer["text"]
        # Telegram is away: the press still gets its answer, and nothing goes to the group
        fake.fail("sendMessage", 500, "Internal Server Error", times=10)
        answer = await _press(fake, group, "Edit")
        assert answer["show_alert"] and "press Edit again in a moment" in answer["text"]
        fake.failures.clear()
        assert not _url_buttons(fake, group), "a person's link is never posted in the group"
        assert len(_url_buttons(fake, OWNER["id"])) == 1


async def test_edit_falls_back_to_a_json_reply_when_the_bridge_serves_no_links(
        tg: Tg, fake: FakeTelegram) -> None:
    async with running(tg.config(DM["id"]), tg.env) as r:
        r.bridge.reads.links = None
        await request_approval(r, SCALE)
        await delivered(r, DM["id"])
        await _press(fake, DM["id"], "Edit")
        key = await fake.wait_for(lambda: next(
            (k for k, m in fake.markups.items() if m.get("force_reply")), None))
        assert "JSON" in fake.messages[key]["text"]
        assert not _url_buttons(fake, DM["id"])


async def test_a_reject_request_takes_its_reason_after_a_restart(tg: Tg,
                                                                 fake: FakeTelegram) -> None:
    config = tg.config(DM["id"])
    async with running(config, tg.env) as r:
        approval_id = await request_approval(r, SCALE)
        await delivered(r, DM["id"])
        await _press(fake, DM["id"], "Reject")
        key = await fake.wait_for(lambda: next(
            (k for k, m in fake.markups.items() if m.get("force_reply")), None))
    async with running(config, tg.env) as r:
        await fake.say(DM, OWNER, "Not during the freeze", reply_to=fake.messages[key])

        async def ended() -> dict[str, Any] | None:
            found = await approval_record(r, approval_id)
            return found if found["status"] != "pending" else None
        result = (await until(ended))["result"]
        assert result["status"] == "rejected" and result["reason"] == "Not during the freeze"
        assert result["decidedBy"] == [{"surface": f"telegram:{DM['id']}",
                                        "user": str(OWNER["id"])}]
