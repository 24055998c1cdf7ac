"""Reminders and escalation on Telegram: a reply to the prompt, answerable; a tier in another chat."""

from __future__ import annotations

import asyncio
from typing import Any

from bridge.runtime.config import EscalationTier
from tests.adapters.telegram.support import DM, GROUP, OWNER, Tg, answered, deploy, keyboard
from tests.fakes.telegram import FakeTelegram
from tests.harness import running


def with_agent(config: Any, **agent: Any) -> Any:
    agents = [config.agents[0].model_copy(update=agent), *config.agents[1:]]
    return config.model_copy(update={"agents": agents})


async def test_a_reminder_replies_to_the_prompt_and_answering_it_resolves(
        tg: Tg, fake: FakeTelegram) -> None:
    config = with_agent(tg.config(DM["id"]), remind_after=[1.0])
    async with running(config, tg.env) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(deploy()))
        prompt = await fake.sent(DM["id"], keyboard)
        reminder = await fake.sent(DM["id"], lambda m: m["text"].startswith("Reminder: Deploy"))
        sent = next(c for c in fake.calls_of("sendMessage") if c["text"] == reminder["text"])
        assert sent["reply_parameters"]["message_id"] == prompt["message_id"]
        assert "reply_markup" not in sent, "a reminder is a nudge, not a second set of buttons"
        await fake.say(DM, OWNER, "canary", reply_to=reminder)
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered("deploy_target", "Canary")


async def test_an_escalation_tier_delivers_in_another_chat_and_all_are_finalized(
        tg: Tg, fake: FakeTelegram) -> None:
    fake.add_chat(GROUP)
    config = with_agent(tg.config(DM["id"], answerers=[OWNER["id"]]), escalation=[
        EscalationTier(after=1.0, surfaces=[f"telegram:{GROUP['id']}"])])
    async with running(config, tg.env) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(deploy()))
        first = await fake.sent(DM["id"], keyboard)
        escalated = await fake.sent(GROUP["id"], keyboard)
        await fake.tap(escalated, OWNER, "Production")
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered("deploy_target", "Production")
        for message in (first, escalated):
            key = (message["chat"]["id"], message["message_id"])

            def finalized(k: tuple[int, int] = key) -> bool:
                return "Answered: Production" in fake.messages[k]["text"]
            await fake.wait_for(finalized)
