"""Bursts to Telegram are paced under its flood limits, which the fake enforces with 429s: every
prompt arrives, in the order asked, and the fake never has to refuse one."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adapters.telegram import limits
from bridge import Pace, Priority
from bridge.agent.client import AskClient
from tests.adapters.telegram.support import DM, GROUP, Tg, deploy, keyboard
from tests.fakes.telegram import FakeTelegram
from tests.harness import SUB_TOKEN, make_config, running, until


async def asked(client: AskClient, sessions: int) -> list[asyncio.Task[Any]]:
    """One question per session (a session holds one pending question at a time)."""
    return [asyncio.create_task(client.ask(deploy(f"Target {n}", "Elsewhere"), session=f"s{n}"))
            for n in range(sessions)]


def prompts_to(fake: FakeTelegram, chat: int) -> list[str]:
    return [c["text"] for c in fake.calls_of("sendMessage") if c["chat_id"] == chat]


async def burst(tg: Tg, fake: FakeTelegram, chat: int, sessions: int) -> None:
    async with running(tg.config(chat), tg.env) as r, r.client() as client:
        tasks = await asked(client, sessions)
        try:
            await until(lambda: len(prompts_to(fake, chat)) == sessions, timeout=30)
            failed = [d for q in await r.bridge.store.pending_questions()
                      for d in await r.bridge.store.deliveries(q.id) if d.state == "failed"]
            assert failed == [], "no prompt given up"
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_burst_to_one_private_chat_is_paced_under_one_message_a_second(
        tg: Tg, fake: FakeTelegram) -> None:
    await burst(tg, fake, DM["id"], sessions=5)
    assert fake.limits is not None and fake.limits.refused == 0, fake.refused


async def test_a_burst_to_a_group_is_paced_under_its_per_minute_limit(
        tg: Tg, monkeypatch: pytest.MonkeyPatch) -> None:
    """The group limit scaled down on both sides (3 a second, not 20 a minute), so that it,
    not the chat's one a second, is the one a burst meets, without a minute-long test."""
    monkeypatch.setattr(limits, "GROUP_PER_MINUTE", 3)
    monkeypatch.setattr(limits, "GROUP_SECONDS", 2.0)
    async with FakeTelegram(group_limit=(3, 2.0)) as fake:
        fake.add_chat(GROUP)
        group_tg = Tg(fake, tg.tmp)
        await burst(group_tg, fake, GROUP["id"], sessions=5)
        assert fake.limits is not None and fake.limits.refused == 0, fake.refused


async def test_a_prompt_to_many_chats_is_paced_under_thirty_messages_a_second(
        tg: Tg, fake: FakeTelegram) -> None:
    chats = [1000 + n for n in range(40)]
    config = make_config(tg.tmp, surfaces=[f"telegram:{c}" for c in chats],
                         telegram=tg.config(DM["id"]).section("telegram"))
    async with running(config, tg.env) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(deploy()))
        try:
            await until(lambda: {c["chat_id"] for c in fake.calls_of("sendMessage")}
                        == set(chats), timeout=30)
            assert fake.limits is not None and fake.limits.refused == 0, fake.refused
            assert all(keyboard(m) for m in fake.messages.values())
        finally:
            ask.cancel()
            await asyncio.gather(ask, return_exceptions=True)


async def test_an_idle_chats_first_prompt_is_not_kept_behind_another_chats_backlog(
        tg: Tg, fake: FakeTelegram) -> None:
    """Twelve prompts wait their turns in one chat (a second apart; eight of them already with
    the platform's senders, four in its line); a prompt to another chat asked after them goes
    out as soon as a sender is free, not after the four."""
    busy, idle = DM["id"], 2000
    config = tg.config(busy)
    helper = config.agents[1].model_copy(update={"role": "main",
                                                 "surfaces": [f"telegram:{idle}"]})
    config = config.model_copy(update={"agents": [config.agents[0], helper]})
    async with running(config, tg.env) as r, r.client() as client, \
            r.client(token=SUB_TOKEN) as other:
        tasks = await asked(client, 12)
        await until(lambda: prompts_to(fake, busy))
        tasks.append(asyncio.create_task(other.ask(deploy())))
        try:
            await until(lambda: prompts_to(fake, idle), timeout=30)
            await until(lambda: len(prompts_to(fake, busy)) >= 4, timeout=30)
            chats = [c["chat_id"] for c in fake.calls_of("sendMessage")]
            assert chats.index(idle) < 4, chats
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)



async def test_a_chats_windows_are_dropped_once_idle_and_the_bots_kept() -> None:
    """Per-chat limiter state does not grow with every chat the bot ever wrote to."""
    loop, later = asyncio.get_running_loop(), [0.0]
    tg_limits = limits.TelegramLimits(clock=lambda: loop.time() + later[0])
    pace = Pace(tg_limits)

    async def send() -> None:
        pass

    for chat in (*range(1, 51), *range(-50, 0)):  # 50 private chats, 50 groups
        await pace.call(f"telegram:{chat}", Priority.PROMPT, send)
    assert len(tg_limits.chats) == 100
    later[0] = limits.GROUP_SECONDS + 1  # past every window's span, the groups' minute too
    bot, _own = tg_limits("telegram:4242", Priority.PROMPT)
    assert len(tg_limits.chats) == 1 and bot is tg_limits.bot


async def test_an_idle_chats_first_prompt_leaves_while_every_sender_waits_on_a_busy_chat(
        tg: Tg, fake: FakeTelegram) -> None:
    """Twelve prompts to one chat hold all the platform's senders (each waiting for that chat's
    one message a second); a prompt to another chat, asked after the busy chat's first, does
    not wait for a sender to come free: it leaves before the busy chat's second."""
    busy, idle = DM["id"], 2000
    config = tg.config(busy)
    helper = config.agents[1].model_copy(update={"role": "main",
                                                 "surfaces": [f"telegram:{idle}"]})
    config = config.model_copy(update={"agents": [config.agents[0], helper]})
    async with running(config, tg.env) as r, r.client() as client, \
            r.client(token=SUB_TOKEN) as other:
        tasks = await asked(client, 12)
        await until(lambda: prompts_to(fake, busy))
        tasks.append(asyncio.create_task(other.ask(deploy())))
        try:
            await until(lambda: prompts_to(fake, idle), timeout=30)
            assert len(prompts_to(fake, busy)) == 1, [c["chat_id"] for c in
                                                       fake.calls_of("sendMessage")]
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
