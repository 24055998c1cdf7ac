"""Telegram end to end: a real bridge, the real python-telegram-bot, and the fake Bot API."""

from __future__ import annotations

import asyncio

from structlog.testing import capture_logs

from bridge.store.records import now_ms
from tests.adapters.telegram.support import (
    CHECKS_AND_DEPLOY,
    CONFIRM,
    DM,
    FORUM,
    GROUP,
    LABELS,
    OWNER,
    STRANGER,
    Tg,
    answered,
    delivered,
    deploy,
    edited,
    keyboard,
)
from tests.fakes.telegram import FakeTelegram
from tests.harness import running, until


async def test_button_tap_answers_the_agent_and_finalizes(tg: Tg, fake: FakeTelegram) -> None:
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(deploy()))
        prompt = await fake.sent(DM["id"], keyboard)
        assert fake.buttons(prompt) == LABELS
        assert "Where should I deploy?" in prompt["text"]
        send = fake.calls_of("sendMessage")[-1]
        assert "parse_mode" not in send
        datas = [b["callback_data"] for row in prompt["reply_markup"]["inline_keyboard"]
                 for b in row]
        assert all(len(d.encode()) <= 64 and d.startswith("ab:q_") for d in datas)

        query = await fake.tap(prompt, OWNER, "Production")
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered("deploy_target", "Production")

        answer = await fake.wait_for(lambda: fake.callback_answer(query))
        assert answer["text"] == "Thanks, recorded: Production."
        assert not answer.get("show_alert")
        final = await edited(fake, prompt)
        assert "reply_markup" not in final
        assert final["text"].startswith(prompt["text"])
        assert final["text"].endswith("\n\nAnswered: Production")


async def test_a_tap_does_not_wait_for_the_answer_to_a_tap_on_another_question(
    tg: Tg, fake: FakeTelegram,
) -> None:
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        first = asyncio.create_task(client.ask(deploy(), session="one"))
        one = await fake.sent(DM["id"], keyboard)
        second = asyncio.create_task(client.ask(deploy(), session="two"))
        two = await fake.sent(DM["id"], lambda m: keyboard(m) and m is not one)
        fake.holds["answerCallbackQuery"] = held = asyncio.Event()
        try:
            await fake.tap(one, OWNER, "Production")
            await fake.wait_for(lambda: fake.calls_of("answerCallbackQuery"))  # and held
            await fake.tap(two, OWNER, "Canary")

            assert (await asyncio.wait_for(second, 10)).to_json() == answered(
                "deploy_target", "Canary")
            assert (await asyncio.wait_for(first, 10)).to_json() == answered(
                "deploy_target", "Production")
        finally:
            held.set()


async def test_other_asks_for_own_words_by_force_reply(tg: Tg, fake: FakeTelegram) -> None:
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        qid = (await client.create(deploy()))["id"]
        prompt = await fake.sent(DM["id"], keyboard)
        await delivered(r, DM["id"])
        query = await fake.tap(prompt, OWNER, "Other…")
        force_key = await fake.wait_for(lambda: next(
            (k for k, m in fake.markups.items() if m.get("force_reply")), None))
        assert fake.markups[force_key]["selective"] is True
        assert (await fake.wait_for(lambda: fake.callback_answer(query)))["text"] == \
            "Reply with your own answer."
        await fake.say(DM, OWNER, "deploy to the moon", reply_to=fake.messages[force_key])

        result = await client.result(qid, wait=10)
        assert result is not None
        assert result.to_json() == answered("deploy_target", "deploy to the moon")
        final = await edited(fake, prompt)
        assert final["text"].endswith("\n\nAnswered")
        assert "moon" not in final["text"]


async def test_skip_button_ends_with_no_answer(tg: Tg, fake: FakeTelegram) -> None:
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(deploy()))
        prompt = await fake.sent(DM["id"], keyboard)
        await fake.tap(prompt, OWNER, "Skip")
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == {"status": "no_answer", "reason": "skipped"}
        final = await edited(fake, prompt)
        assert final["text"].endswith("\n\nSkipped")
        assert "reply_markup" not in final


async def test_several_questions_answered_with_numbered_lines(tg: Tg, fake: FakeTelegram) -> None:
    request = {"questions": [deploy()["questions"][0], CONFIRM]}
    async with running(tg.config(DM["id"], native="single"), tg.env) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(request))
        prompt = await fake.sent(DM["id"])
        assert "reply_markup" not in prompt
        assert prompt["text"].startswith("2 questions:")

        await delivered(r, DM["id"])
        partial = await fake.say(DM, OWNER, "1: 2")
        still = await fake.sent(DM["id"], lambda m: "Still needed" in m["text"])
        assert fake.calls_of("sendMessage")[-1]["reply_parameters"]["message_id"] == \
            partial["message_id"]
        assert "2. Notify" in still["text"]
        await fake.say(DM, OWNER, "2: 2", reply_to=still)

        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == {"status": "answered", "answers": {"answers": {
            "deploy_target": {"answers": ["Production"]}, "notify": {"answers": ["The team"]}}}}
        final = await edited(fake, prompt)
        assert final["text"].endswith("\n\nAnswered: Production, The team")


async def test_multiselect_reply_to_the_prompt(tg: Tg, fake: FakeTelegram) -> None:
    async with running(tg.config(DM["id"], native="single"), tg.env) as r, r.client() as client:
        ask = asyncio.create_task(client.ask({"questions": [CHECKS_AND_DEPLOY]}))
        prompt = await fake.sent(DM["id"])
        assert "reply_markup" not in prompt
        assert "1,3" in prompt["text"]
        await delivered(r, DM["id"])
        await fake.say(DM, OWNER, "1,3", reply_to=prompt)

        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered("checks", "Lint", "Build")
        assert (await edited(fake, prompt))["text"].endswith("Answered: Lint, Build")


async def test_stranger_in_a_group_is_refused_and_ignored(tg: Tg, fake: FakeTelegram) -> None:
    fake.add_chat(GROUP)
    config = tg.config(GROUP["id"], answerers=[OWNER["id"]])
    async with running(config, tg.env) as r, r.client() as client:
        qid = (await client.create(deploy()))["id"]
        prompt = await fake.sent(GROUP["id"], keyboard)
        refused = await fake.tap(prompt, STRANGER, "Production")
        answer = await fake.wait_for(lambda: fake.callback_answer(refused))
        assert answer["show_alert"] is True
        assert answer["text"].startswith("Sorry, only the person")
        await delivered(r, GROUP["id"])
        chatter = await fake.say(GROUP, STRANGER, "2")
        assert (await client.question(qid))["status"] == "pending"

        await fake.tap(prompt, OWNER, "Canary")
        result = await client.result(qid, wait=10)
        assert result is not None
        assert result.to_json() == answered("deploy_target", "Canary")
        replies = [c for c in fake.calls_of("sendMessage")
                   if c.get("reply_parameters", {}).get("message_id") == chatter["message_id"]]
        assert replies == []
        assert (await client.question(qid))["answeredBy"]["user"] == str(OWNER["id"])


async def test_late_tap_gets_an_alert_not_an_error(tg: Tg, fake: FakeTelegram) -> None:
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        qid = (await client.create(deploy()))["id"]
        prompt = await fake.sent(DM["id"], keyboard)
        await client.cancel(qid)
        await edited(fake, prompt)
        late = await fake.tap(prompt, OWNER, "Production")
        answer = await fake.wait_for(lambda: fake.callback_answer(late))
        assert answer == {"callback_query_id": late, "text": "This question has already ended.",
                          "show_alert": True}


async def test_flood_wait_is_honoured_then_delivered_and_counted(
        tg: Tg, fake: FakeTelegram) -> None:
    fake.fail("sendMessage", 429, "Too Many Requests: retry after 1", retry_after=1)
    with capture_logs() as seen:
        async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
            ask = asyncio.create_task(client.ask(deploy()))
            prompt = await fake.sent(DM["id"], keyboard)
            assert len(fake.calls_of("sendMessage")) == 2
            await fake.tap(prompt, OWNER, "Staging (Recommended)")
            result = await asyncio.wait_for(ask, 10)
            assert result.to_json() == answered("deploy_target", "Staging (Recommended)")
    assert [(e["platform"], e["method"], e["retry_after"]) for e in seen
            if e["event"] == "rate_limited"] == [("telegram", "sendMessage", 1.0)]


async def test_surface_that_stays_down_ends_undelivered(tg: Tg, fake: FakeTelegram) -> None:
    fake.fail("sendMessage", 502, "Bad Gateway", times=4)
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        result = await asyncio.wait_for(client.ask(deploy()), 15)
        assert result.to_json() == {"status": "no_answer", "reason": "undelivered"}
        assert len(fake.calls_of("sendMessage")) == 4
        view = (await client.timeline())[0]
        assert view["deliveries"][0]["state"] == "failed"
        assert "Telegram could not be reached" in view["deliveries"][0]["error"]


async def test_refused_keyboard_falls_back_to_plain_text(tg: Tg, fake: FakeTelegram) -> None:
    fake.fail("sendMessage", 400, "Bad Request: BUTTON_DATA_INVALID")
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(deploy()))
        prompt = await fake.sent(DM["id"])
        assert "reply_markup" not in fake.calls_of("sendMessage")[-1]
        assert "2) Production" in prompt["text"]
        await delivered(r, DM["id"])
        await fake.say(DM, OWNER, "production")
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered("deploy_target", "Production")


async def test_forum_topic_and_markup_characters(tg: Tg, fake: FakeTelegram) -> None:
    fake.add_chat(FORUM)
    odd = "*Prod* _now_ [x](y) <b>&amp;</b>"
    config = tg.config(f"{FORUM['id']}/42", answerers=[OWNER["id"]])
    async with running(config, tg.env) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(deploy("Staging", odd)))
        prompt = await fake.sent(FORUM["id"], keyboard)
        assert fake.calls_of("sendMessage")[-1]["message_thread_id"] == 42
        assert fake.buttons(prompt)[1] == odd
        await fake.tap(prompt, OWNER, odd)
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered("deploy_target", odd)
        assert (await edited(fake, prompt))["text"].endswith(f"Answered: {odd}")


async def test_other_in_a_group_is_addressed_to_the_person(tg: Tg, fake: FakeTelegram) -> None:
    fake.add_chat(GROUP)
    config = tg.config(GROUP["id"], answerers=[OWNER["id"]])
    async with running(config, tg.env) as r, r.client() as client:
        qid = (await client.create(deploy()))["id"]
        prompt = await fake.sent(GROUP["id"], keyboard)
        await delivered(r, GROUP["id"])
        await fake.tap(prompt, OWNER, "Other…")
        ask = await fake.sent(GROUP["id"], lambda m: m.get("entities") is not None)
        assert ask["text"].startswith("Dewi, Deploy: reply to this message")
        mention = ask["entities"][0]
        assert (mention["type"], mention["user"]["id"]) == ("text_mention", OWNER["id"])
        assert fake.markups[(GROUP["id"], ask["message_id"])]["selective"] is True
        await fake.say(GROUP, OWNER, "after lunch", reply_to=ask)
        result = await client.result(qid, wait=10)
        assert result is not None
        assert result.to_json() == answered("deploy_target", "after lunch")


async def test_a_reply_to_an_old_force_reply_answers_after_a_restart(
        tg: Tg, fake: FakeTelegram) -> None:
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        qid = (await client.create(deploy()))["id"]
        prompt = await fake.sent(DM["id"], keyboard)
        await delivered(r, DM["id"])
        await fake.tap(prompt, OWNER, "Other…")
        force_key = await fake.wait_for(lambda: next(
            (k for k, m in fake.markups.items() if m.get("force_reply")), None))
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        await fake.say(DM, OWNER, "deploy to the moon", reply_to=fake.messages[force_key])
        result = await client.result(qid, wait=10)
        assert result is not None
        assert result.to_json() == answered("deploy_target", "deploy to the moon")


async def test_a_force_replys_binding_leaves_the_store_with_its_question(
        tg: Tg, fake: FakeTelegram) -> None:
    """Kept while the question is kept (a late reply is told it ended); gone once retention
    deleted the question, on the next sweep after a question ends."""
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        adapter, store = r.bridge.adapters["telegram"], r.bridge.store
        qid = (await client.create(deploy()))["id"]
        await fake.tap(await fake.sent(DM["id"], keyboard), OWNER, "Other…")
        force_key = await fake.wait_for(lambda: next(
            (k for k, m in fake.markups.items() if m.get("force_reply")), None))
        await fake.say(DM, OWNER, "deploy to the moon", reply_to=fake.messages[force_key])
        assert await client.result(qid, wait=10) is not None
        await until(lambda: adapter.bindings._pruning is not None
                    and adapter.bindings._pruning.done())
        assert [v for _, v in await store.state_items("telegram", "bound:")] == [qid]

        assert await store.delete_ended(now_ms() + 1, 100) == 1  # as retention would
        adapter.bindings._swept = None  # the hour is up
        second = (await client.create(deploy()))["id"]
        await fake.tap(await fake.sent(DM["id"], keyboard), OWNER, LABELS[0])
        assert await client.result(second, wait=10) is not None
        await until(lambda: adapter.bindings._swept is not None
                    and adapter.bindings._pruning is not None
                    and adapter.bindings._pruning.done())
        assert await store.state_items("telegram", "bound:") == []
