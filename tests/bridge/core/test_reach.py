"""Reach end to end on the webhook channel: reminders, escalation tiers, durable timers, restarts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bridge.core.reach import Scheduler, plan
from bridge.model.ids import QuestionId
from bridge.store import now_ms
from bridge.store.records import TimerRecord
from tests.bridge.support import reach_config, reply, sent
from tests.fakes.gateway import gateway
from tests.harness import WEBHOOK_SECRET, running, until
from tests.samples import ask

OPEN_A_MINUTE = ask(timeoutSeconds=60)
"""The sample question, open long enough for its reminders and tiers to come first."""


async def test_a_reminder_goes_to_each_live_prompt_and_answering_it_resolves(tmp_path: Path) -> None:
    async with gateway(WEBHOOK_SECRET) as gw:
        config = reach_config(tmp_path, gw.url, remind_after=[1])
        async with running(config) as r, r.client() as agent, r.http() as http:
            asked = now_ms()
            ask = asyncio.create_task(agent.ask(OPEN_A_MINUTE))
            reminder = (await until(gw.reminders))[0]
            assert now_ms() - asked >= 1000
            assert reminder["text"].startswith("Reminder: Deploy — still waiting for your answer")
            assert "expires in 1 min" in reminder["text"]
            answer = await reply(http, "+100", "2", replyTo=reminder["questionId"])
            assert answer["accepted"] is True
            result = await asyncio.wait_for(ask, 10)
            assert result.answer_map() == {"deploy_target": ["Production"]}
            await until(gw.statuses)
            delivery = (await agent.question(reminder["questionId"]))["deliveries"][0]
            assert delivery["reminders"] == 1 and delivery["tier"] == 0
            assert len(gw.reminders()) == 1


async def test_a_tier_is_delivered_at_after_answered_there_and_tier_0_finalized(
    tmp_path: Path,
) -> None:
    async with gateway(WEBHOOK_SECRET) as gw:
        config = reach_config(tmp_path, gw.url, escalation=[
            {"after": 1, "surfaces": ["webhook:sms:+200"]}])
        async with running(config) as r, r.client() as agent, r.http() as http:
            ask = asyncio.create_task(agent.ask(OPEN_A_MINUTE))
            await until(lambda: sent(gw, "prompt", "+100"))
            assert not sent(gw, "prompt", "+200")
            escalated = (await until(lambda: sent(gw, "prompt", "+200")))[0]
            assert "1) Staging (Recommended)" in escalated["text"]
            assert (await reply(http, "+200", "1"))["accepted"] is True
            result = await asyncio.wait_for(ask, 10)
            assert result.answer_map() == {"deploy_target": ["Staging (Recommended)"]}
            await until(lambda: sent(gw, "status", "+100") and sent(gw, "status", "+200"))
            view = await agent.question(escalated["questionId"])
            tiers = {d["surface"]: d["tier"] for d in view["deliveries"]}
            assert tiers == {"webhook:sms:+100": 0, "webhook:sms:+200": 1}
            assert all(d["deliveredAt"] for d in view["deliveries"])
            assert view["answeredBy"]["surface"] == "webhook:sms:+200"


async def test_what_fell_due_while_down_is_sent_once_after_a_restart(tmp_path: Path) -> None:
    async with gateway(WEBHOOK_SECRET) as gw:
        config = reach_config(tmp_path, gw.url, remind_after=[1], escalation=[
            {"after": 2, "surfaces": ["webhook:sms:+200"]}])
        async with running(config) as r, r.client() as agent:
            created = await agent.create(OPEN_A_MINUTE)
            await until(lambda: sent(gw, "prompt", "+100"))
        await until(lambda: now_ms() > created_ms(created) + 2500, timeout=10)
        assert not gw.reminders() and not sent(gw, "prompt", "+200")  # nothing while down
        async with running(config) as r:
            await until(lambda: gw.reminders() and sent(gw, "prompt", "+200"))
            await until(lambda: _all_sent(r, created["id"]))
            assert len(gw.reminders()) == 1
            assert len(sent(gw, "prompt", "+200")) == 1
        async with running(config) as r:  # a second restart sends nothing again
            await until(lambda: r.bridge.broker.reach.scheduler._task is not None)
            assert await _timers_left(r, created["id"]) == 0
            assert len(gw.reminders()) == 1


def created_ms(created: dict[str, Any]) -> int:
    from datetime import datetime

    expires = datetime.fromisoformat(created["expiresAt"].replace("Z", "+00:00"))
    return int(expires.timestamp() * 1000) - 60_000


async def _timers_left(r: Any, qid: str) -> int:
    return len(await r.bridge.store.timers_of(qid))


async def _all_sent(r: Any, qid: str) -> bool:
    return await _timers_left(r, qid) == 0


async def test_nothing_is_sent_after_the_question_ended(tmp_path: Path) -> None:
    async with gateway(WEBHOOK_SECRET) as gw:
        config = reach_config(tmp_path, gw.url, remind_after=[1], escalation=[
            {"after": 1.2, "surfaces": ["webhook:sms:+200"]}])
        async with running(config) as r, r.client() as agent, r.http() as http:
            ask = asyncio.create_task(agent.ask(OPEN_A_MINUTE))
            await until(lambda: sent(gw, "prompt", "+100"))
            assert (await reply(http, "+100", "skip"))["accepted"] is True
            assert (await asyncio.wait_for(ask, 10)).reason == "skipped"
            await until(lambda: not r.bridge.broker.reach.scheduler._heap)  # both fell due
            assert not gw.reminders() and not sent(gw, "prompt", "+200")


def test_timers_due_at_or_after_the_deadline_are_never_planned(tmp_path: Path) -> None:
    from bridge.model.ids import AgentName, QuestionId, SessionKey
    from bridge.store import QuestionRecord

    config = reach_config(tmp_path, "http://127.0.0.1:9/x", remind_after=[10, 30, 40],
                          escalation=[{"after": 20, "surfaces": ["web"]},
                                      {"after": 30, "surfaces": ["web"]}])
    from bridge.model.validation import parse_ask_request

    record = QuestionRecord(QuestionId("q_x"), AgentName("assistant"), SessionKey("s"),
                            parse_ask_request(OPEN_A_MINUTE), "pending", 0, 30_000)
    timers = plan(config.agents[0], record)
    assert [(t.kind, t.seq, t.due_at) for t in timers] == [
        ("remind", 1, 10_000), ("escalate", 1, 20_000)]


async def test_the_scheduler_fires_in_due_order_and_wakes_only_for_an_earlier_timer() -> None:
    """One task sleeps until the first due timer. A timer due sooner wakes it (and fires on
    time); one due later, as every new ask's are, leaves it asleep."""
    fired: list[tuple[str, int]] = []

    async def fire(timer: TimerRecord) -> None:
        fired.append((timer.question_id, now_ms() - timer.due_at))

    scheduler = Scheduler(fire, asyncio.create_task)
    scheduler.start()
    try:
        start = now_ms()
        scheduler.add([TimerRecord(QuestionId("late"), "remind", 1, start + 400)])
        await asyncio.sleep(0.05)  # asleep until "late" is due
        scheduler.add([TimerRecord(QuestionId("later"), "remind", 1, start + 600)])
        assert not scheduler._wake.is_set()
        scheduler.add([TimerRecord(QuestionId("soon"), "remind", 1, start + 150)])
        assert scheduler._wake.is_set()
        await until(lambda: len(fired) == 3)
        assert [q for q, _ in fired] == ["soon", "late", "later"]
        assert all(late >= 0 for _, late in fired)  # none fired early
    finally:
        await scheduler.stop()


async def test_the_scheduler_stops_even_when_a_timer_was_added_in_the_same_turn() -> None:
    """An ask's timers added just as the server stops: on Python 3.11 `asyncio.wait_for`
    swallowed the cancellation once the wait it wrapped had finished, and `stop()` hung."""
    async def fire(timer: TimerRecord) -> None:
        pass

    scheduler = Scheduler(fire, asyncio.create_task)
    scheduler.start()
    scheduler.add([TimerRecord(QuestionId("q1"), "remind", 1, now_ms() + 60_000)])
    await asyncio.sleep(0.05)  # asleep until q1 is due
    scheduler.add([TimerRecord(QuestionId("q2"), "remind", 1, now_ms() + 30_000)])  # wakes it
    await asyncio.wait_for(scheduler.stop(), 10)  # a hang would be a TimeoutError here
    assert scheduler._task is None
