"""Event hooks: signed, retried past a failing receiver, once per id, and stopped cleanly."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from bridge import SIGNATURE_HEADER
from bridge.core.event_hooks import EventHooks
from bridge.runtime.config import parse_config
from bridge.store import SqliteStore
from tests.bridge.support import reach_config, reply, sent
from tests.fakes.gateway import gateway
from tests.harness import WEBHOOK_SECRET, running, until
from tests.samples import ask

OPEN_A_MINUTE = ask(timeoutSeconds=60)
"""The sample question, open long enough for its reminders and tiers to come first."""


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
    port = runner.addresses[0][1]
    try:
        async with gateway(WEBHOOK_SECRET) as gw:
            config = reach_config(tmp_path, gw.url, remind_after=[1])
            raw = config.model_dump()
            raw["events"] = [{"url": f"http://127.0.0.1:{port}/hook", "secret_env": "EV_SECRET",
                              "retry_start_seconds": 0.05}]
            config = parse_config({k: v for k, v in raw.items() if k not in ("server", "web")})
            env = {**base_env(), "EV_SECRET": "events-secret"}
            async with running(config, env) as r, r.client() as agent, r.http() as http:
                ask = asyncio.create_task(agent.ask(OPEN_A_MINUTE))
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


async def test_an_approval_escalates_with_its_own_event_and_the_tier_may_decide(
        tmp_path: Path) -> None:
    from aiohttp import web

    from tests.harness import AGENT_TOKEN, base_env

    seen: list[dict[str, Any]] = []

    async def receive(request: web.Request) -> web.Response:
        seen.append(json.loads(await request.read()))
        return web.Response(status=204)

    app = web.Application()
    app.router.add_post("/hook", receive)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    port = runner.addresses[0][1]
    try:
        async with gateway(WEBHOOK_SECRET) as gw:
            raw = reach_config(tmp_path, gw.url, escalation=[
                {"after": 1, "surfaces": ["webhook:sms:+200"]}]).model_dump()
            raw["events"] = [{"url": f"http://127.0.0.1:{port}/hook", "secret_env": "EV_SECRET",
                              "types": ["approval.created", "approval.escalated",
                                        "approval.decided", "question.escalated"]}]
            config = parse_config({k: v for k, v in raw.items() if k not in ("server", "web")})
            async with running(config, {**base_env(), "EV_SECRET": "s"}) as r, r.http() as http:
                call = asyncio.create_task(http.post(
                    "/v1/sessions/main/approve", headers={"Authorization": f"Bearer {AGENT_TOKEN}"},
                    json={"action": "Restart web", "tool": "restart", "timeoutSeconds": 60}))
                tier = (await until(lambda: sent(gw, "approval", "+200")))[0]
                assert "Restart web" in tier["text"]
                await until(lambda: "approval.escalated" in {e["type"] for e in seen})
                assert (await reply(http, "+200", "approve"))["accepted"] is True
                result = (await asyncio.wait_for(call, 10)).json()
                assert result["status"] == "approved"
                await until(lambda: "approval.decided" in {e["type"] for e in seen})
        types = [e["type"] for e in seen]
        assert types == ["approval.created", "approval.escalated", "approval.decided"], types
        escalated = seen[1]["approval"]
        assert escalated["id"] == tier["questionId"] and escalated["status"] == "pending"
        assert {d["surface"]: d["tier"] for d in escalated["deliveries"]}.get(
            "webhook:sms:+200") == 1
    finally:
        await runner.cleanup()
