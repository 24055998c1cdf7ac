"""Reach end to end on the webhook channel: reminders, escalation tiers, durable timers, restarts."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bridge import SIGNATURE_HEADER
from bridge.core.event_hooks import EventHooks
from bridge.core.reach import Scheduler, plan
from bridge.model.ids import QuestionId
from bridge.runtime.config import ConfigError, parse_config
from bridge.store import SqliteStore, now_ms
from bridge.store.records import TimerRecord
from tests.bridge.reach_support import reach_config, reply, sent
from tests.fakes.gateway import gateway
from tests.harness import WEBHOOK_SECRET, make_config, running, until

DEPLOY = {
    "timeoutSeconds": 60,
    "questions": [{
        "id": "deploy_target", "header": "Deploy", "question": "Where should I deploy?",
        "options": [{"label": "Staging (Recommended)"}, {"label": "Production"}]}],
}


async def test_a_reminder_goes_to_each_live_prompt_and_answering_it_resolves(tmp_path: Path) -> None:
    async with gateway(WEBHOOK_SECRET) as gw:
        config = reach_config(tmp_path, gw.url, remind_after=[1])
        async with running(config) as r, r.client() as agent, r.http() as http:
            asked = now_ms()
            ask = asyncio.create_task(agent.ask(DEPLOY))
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
            ask = asyncio.create_task(agent.ask(DEPLOY))
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
            created = await agent.create(DEPLOY)
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
            ask = asyncio.create_task(agent.ask(DEPLOY))
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
                            parse_ask_request(DEPLOY), "pending", 0, 30_000)
    timers = plan(config.agents[0], record)
    assert [(t.kind, t.seq, t.due_at) for t in timers] == [
        ("remind", 1, 10_000), ("escalate", 1, 20_000)]


@pytest.mark.parametrize(("agent", "says"), [
    ({"remind_after": [600, 300]}, "remind_after must be in ascending order"),
    ({"remind_after": [0]}, "remind_after takes seconds greater than 0"),
    ({"escalation": [{"after": 60, "surfaces": ["web"]}, {"after": 30, "surfaces": ["web"]}]},
     "escalation tiers' `after` must be in ascending order"),
    ({"escalation": [{"after": 60, "surfaces": []}]}, r"escalation\[0\].surfaces"),
])
def test_reach_settings_are_checked_at_start(tmp_path: Path, agent: dict[str, Any],
                                             says: str) -> None:
    with pytest.raises(ConfigError, match=says.replace("`", ".")):
        reach_config(tmp_path, "http://127.0.0.1:9/x", **agent)


def test_a_tier_surface_needs_its_adapter(tmp_path: Path) -> None:
    from bridge.server.composition import Bridge
    from tests.harness import base_env

    config = reach_config(tmp_path, "http://127.0.0.1:9/x", escalation=[
        {"after": 60, "surfaces": ["slack:C1"]}])
    with pytest.raises(ConfigError, match=r"'slack:C1' in escalation\[0\].surfaces"):
        Bridge.build(config, base_env())


async def test_event_hooks_survive_a_failing_receiver_and_arrive_signed_once_per_id(
    tmp_path: Path,
) -> None:
    from aiohttp import web

    from bridge import verify_signature
    from tests.harness import base_env

    seen: list[dict[str, Any]] = []
    bodies: dict[str, bytes] = {}
    failures = {"left": 3}

    async def receive(request: web.Request) -> web.Response:
        body = await request.read()
        assert verify_signature("events-secret", body, request.headers.get(SIGNATURE_HEADER))
        if failures["left"]:
            failures["left"] -= 1
            return web.Response(status=503)
        event = json.loads(body)
        assert bodies.setdefault(event["id"], body) == body  # a retry is the same event
        seen.append(event)
        return web.Response(status=204)

    app = web.Application()
    app.router.add_post("/hook", receive)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        async with gateway(WEBHOOK_SECRET) as gw:
            config = reach_config(tmp_path, gw.url, remind_after=[1])
            raw = config.model_dump()
            raw["events"] = [{"url": f"http://127.0.0.1:{port}/hook", "secret_env": "EV_SECRET",
                              "retry_start_seconds": 0.05}]
            config = parse_config({k: v for k, v in raw.items() if k not in ("server", "web")})
            env = {**base_env(), "EV_SECRET": "events-secret"}
            async with running(config, env) as r, r.client() as agent, r.http() as http:
                ask = asyncio.create_task(agent.ask(DEPLOY))
                await until(gw.reminders)
                await reply(http, "+100", "1")
                await asyncio.wait_for(ask, 10)
                wanted = {"question.created", "question.delivered", "question.reminded",
                          "question.resolved"}
                await until(lambda: {e["type"] for e in seen} == wanted)
        assert failures["left"] == 0
        assert len({e["id"] for e in seen}) == len(seen)  # every event once (no retry doubled)
        resolved = next(e for e in seen if e["type"] == "question.resolved")
        assert resolved["question"]["status"] == "answered"
        assert resolved["question"]["result"]["answers"]["answers"]["deploy_target"] == {
            "answers": ["Staging (Recommended)"]}
        assert all(e["at"].endswith("Z") for e in seen)
    finally:
        await runner.cleanup()


def test_event_hooks_need_their_secret(tmp_path: Path) -> None:
    from bridge.server.composition import Bridge
    from tests.harness import base_env

    raw = make_config(tmp_path).model_dump()
    raw["events"] = [{"url": "http://127.0.0.1:9/hook", "secret_env": "NOPE_SECRET"}]
    config = parse_config({k: v for k, v in raw.items() if k not in ("server", "web")})
    with pytest.raises(ConfigError, match=r"\$NOPE_SECRET"):
        Bridge.build(config, base_env())


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


async def test_event_hooks_stop_even_when_an_event_was_queued_in_the_same_turn(
        tmp_path: Path) -> None:
    """The hook sender sleeps until an event is queued; one queued just as the server stops
    must not keep it running (Python 3.11's `wait_for` swallowed the cancellation then)."""
    store = SqliteStore(str(tmp_path / "store.db"))
    await store.open()
    hooks = EventHooks(store, [])
    try:
        await hooks.start()
        await asyncio.sleep(0.2)  # asleep until the next poll
        hooks._wake.set()  # as queueing an event does
        await asyncio.wait_for(hooks.stop(), 10)  # a hang would be a TimeoutError here
        assert hooks._runner is not None and hooks._runner.done()
    finally:
        await store.close()
