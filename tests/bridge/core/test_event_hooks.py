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
from tests.bridge.support import reach_config, reply
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
