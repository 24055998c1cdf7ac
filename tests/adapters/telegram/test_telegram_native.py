"""Telegram's native layouts: toggles edited in place, a walk through several questions."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.adapters.telegram.support import (
    CHECKS_AND_DEPLOY,
    CONFIRM,
    DM,
    OWNER,
    STRANGER,
    Tg,
    deploy,
    keyboard,
)
from tests.fakes.telegram import FakeTelegram
from tests.harness import running, until


def datas(message: dict[str, Any]) -> list[str]:
    return [b["callback_data"] for row in message["reply_markup"]["inline_keyboard"]
            for b in row]


async def press(fake: FakeTelegram, key: tuple[int, int], caption: str,
                user: dict[str, Any] = OWNER) -> dict[str, Any]:
    """Press `caption` on the message as it is now; the callback answer the bot gave."""
    before = dict(fake.messages[key])
    query = await fake.tap(before, user, caption)
    return dict(await fake.wait_for(lambda: fake.callback_answer(query)))


async def test_multiselect_toggles_edit_the_keyboard_in_place(tg: Tg, fake: FakeTelegram) -> None:
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        ask = asyncio.create_task(client.ask({"questions": [CHECKS_AND_DEPLOY]}))
        prompt = await fake.sent(DM["id"], keyboard)
        key = (DM["id"], prompt["message_id"])
        assert fake.buttons(prompt) == ["☐ Lint", "☐ Test", "☐ Build", "☐ Deploy", "Done",
                                        "Other…", "Skip"]
        assert prompt["text"].startswith("Checks\nWhich checks?")
        assert "Choose one or more, then Done." in prompt["text"]
        sends = len(fake.calls_of("sendMessage"))

        await press(fake, key, "☐ Lint")
        await until(lambda: "☑ Lint" in fake.buttons(fake.messages[key]))
        await press(fake, key, "☐ Build")
        await until(lambda: "☑ Build" in fake.buttons(fake.messages[key]))
        assert fake.buttons(fake.messages[key])[:4] == ["☑ Lint", "☐ Test", "☑ Build",
                                                        "☐ Deploy"]
        assert len(fake.calls_of("sendMessage")) == sends, "edited in place, never re-sent"
        edits = fake.calls_of("editMessageText")
        assert {e["message_id"] for e in edits} == {prompt["message_id"]}

        done = await press(fake, key, "Done")
        assert done["text"] == "Thanks, recorded: Lint, Build." and not done.get("show_alert")
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json()["answers"]["answers"] == {"checks": {"answers": ["Lint", "Build"]}}
        await until(lambda: "reply_markup" not in fake.messages[key])
        assert fake.messages[key]["text"].endswith("\n\nAnswered: Lint, Build")


async def test_several_questions_are_walked_in_one_message(tg: Tg, fake: FakeTelegram) -> None:
    request = {"questions": [deploy()["questions"][0], CHECKS_AND_DEPLOY, CONFIRM]}
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        qid = (await client.create(request))["id"]
        prompt = await fake.sent(DM["id"], keyboard)
        key = (DM["id"], prompt["message_id"])
        assert prompt["text"].startswith("1/3 Deploy\nWhere should I deploy?")
        assert "Deploy: —\nChecks: —\nNotify: —" in prompt["text"]
        assert fake.buttons(prompt) == ["Staging (Recommended)", "Production", "Canary",
                                        "Next ›", "Other…", "Skip"]

        await press(fake, key, "Production")  # one choice: on to the next question
        await until(lambda: fake.messages[key]["text"].startswith("2/3 Checks"))
        now = fake.messages[key]
        assert "Deploy: Production" in now["text"]
        assert fake.buttons(now)[4:] == ["‹ Back", "Next ›", "Other…", "Skip"]
        await press(fake, key, "‹ Back")
        await until(lambda: fake.messages[key]["text"].startswith("1/3 Deploy"))
        assert "✓ Production" in fake.buttons(fake.messages[key])
        for step in ("2/3", "3/3"):
            await press(fake, key, "Next ›")
            await until(lambda s=step: fake.messages[key]["text"].startswith(s))
        assert fake.buttons(fake.messages[key])[2:] == ["‹ Back", "Done", "Other…", "Skip"]

        refused = await press(fake, key, "Done")
        assert refused["show_alert"] and refused["text"] == "Answer Checks first."
        assert (await client.question(qid))["status"] == "pending"

        for data in {d for m in fake.calls_of("editMessageText") for d in datas(m)}:
            assert len(data.encode()) <= 64 and data.startswith(f"ab:{qid}:")
            assert not any(word in data for word in ("Production", "Lint", "Nobody", "Next"))


async def test_a_strangers_tap_moves_nothing(tg: Tg, fake: FakeTelegram) -> None:
    request = {"questions": [deploy()["questions"][0], CHECKS_AND_DEPLOY]}
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        qid = (await client.create(request))["id"]
        prompt = await fake.sent(DM["id"], keyboard)
        key = (DM["id"], prompt["message_id"])
        for caption in ("Next ›", "Canary", "Skip"):
            answer = await press(fake, key, caption, STRANGER)
            assert answer["show_alert"]
            assert answer["text"] == "Sorry, only the person this question is for can answer it."
        assert fake.messages[key] == prompt
        assert await r.bridge.store.partial(qid) == {}
        assert (await client.question(qid))["status"] == "pending"


async def test_other_for_one_step_keeps_own_words_for_that_question(
        tg: Tg, fake: FakeTelegram) -> None:
    request = {"questions": [deploy()["questions"][0], CHECKS_AND_DEPLOY]}
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        qid = (await client.create(request))["id"]
        prompt = await fake.sent(DM["id"], keyboard)
        key = (DM["id"], prompt["message_id"])
        await press(fake, key, "Other…")
        ask = await fake.sent(DM["id"], lambda m: m["text"].startswith("Deploy: reply"))
        await fake.say(DM, OWNER, "the moon", reply_to=ask)
        kept = await fake.sent(DM["id"], lambda m: m["text"].startswith("Kept."))
        assert kept["text"] == "Kept. Now answer Checks."
        await until(lambda: "Deploy: answered" in fake.messages[key]["text"])
        assert "moon" not in fake.messages[key]["text"], "own words are never echoed"
        assert await r.bridge.store.partial(qid) == {"deploy_target": ["the moon"]}
        assert (await client.question(qid))["status"] == "pending"
