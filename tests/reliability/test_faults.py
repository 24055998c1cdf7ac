"""Platform faults: 429 with retry_after, 5xx, connection resets and timeouts on a share of calls,
and surfaces that are down for good. Every question is delivered or reported; none is stuck."""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

from aiohttp import web

from tests.fakes.gateway import Gateway, gateway
from tests.fakes.telegram import TOKEN, FakeTelegram, _error, payload
from tests.harness import WEBHOOK_SECRET, free_port, until
from tests.reliability.figures import Figures
from tests.reliability.server import Server, gather_limited
from tests.reliability.support import create, ended, record, reply

SHARE = 0.3
QUESTIONS = 40
CHAT = payload("chat_private_owner")
KINDS = ("429", "5xx", "reset", "timeout")


class Faults:
    """Decides, per call, whether to inject a fault and which; counts what it injected."""

    def __init__(self, share: float, seed: int) -> None:
        self.share = share
        self.rng = random.Random(seed)
        self.injected: Counter[str] = Counter()
        self.calls = 0

    def pick(self) -> str | None:
        self.calls += 1
        if self.rng.random() >= self.share:
            return None
        kind = self.rng.choice(KINDS)
        self.injected[kind] += 1
        return kind

    async def fail(self, request: web.Request, kind: str) -> web.Response:
        if kind == "429":
            return _error(429, "Too Many Requests: retry after 1", retry_after=1)
        if kind == "5xx":
            return _error(502, "Bad Gateway")
        if kind == "reset":
            assert request.transport is not None
            request.transport.abort()  # the connection drops mid-request
            return web.Response(status=599)
        await asyncio.sleep(2.5)  # longer than the client's timeout; nothing was done
        return _error(504, "Gateway Timeout")


class FaultyTelegram(FakeTelegram):
    def __init__(self, faults: Faults) -> None:
        super().__init__(limits=False)
        self.faults = faults

    async def _handle(self, request: web.Request) -> web.Response:
        if request.match_info["method"] in ("sendMessage", "editMessageText"):
            kind = self.faults.pick()
            if kind is not None:
                return await self.faults.fail(request, kind)
        return await super()._handle(request)


def faulty_gateway(gw: Gateway, faults: Faults) -> None:
    original = gw.handle

    async def handle(request: web.Request) -> web.Response:
        kind = faults.pick()
        if kind is not None:
            await request.read()
            return await faults.fail(request, kind)
        return await original(request)
    gw.handle = handle  # type: ignore[method-assign]


async def test_faulty_platforms_deliver_or_report(tmp_path: Path, figures: Figures) -> None:
    tg_faults, gw_faults = Faults(SHARE, 1), Faults(SHARE, 2)
    dead = f"http://127.0.0.1:{free_port()}"  # nothing listens there, for good
    async with gateway(WEBHOOK_SECRET) as gw, FaultyTelegram(tg_faults) as tg:
        faulty_gateway(gw, gw_faults)
        app = web.Application()
        app.router.add_post("/send", gw.handle)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        url = f"http://127.0.0.1:{runner.addresses[0][1]}/send"
        server = Server(tmp_path, {
            "agents": [
                {"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main",
                 "surfaces": [f"telegram:{CHAT['id']}", "webhook:sms:+100", "slack:C0123",
                              "webhook:dead:+1"]},
                {"name": "stranded", "token_env": "STRANDED_TOKEN", "role": "main",
                 "surfaces": ["slack:C0999", "webhook:dead:+2"]},
            ],
            "webhooks": {"sms": {"secret_env": "HOOK_SECRET", "url": url,
                                 "timeout_seconds": 1, "attempts": 4},
                         "dead": {"secret_env": "HOOK_SECRET", "url": dead + "/send",
                                  "timeout_seconds": 1}},
            "telegram": {"token_env": "TELEGRAM_BOT_TOKEN", "base_url": tg.base_url,
                         "poll_timeout": 1, "request_timeout": 1, "retry_base_seconds": 0.1,
                         "max_retry_after": 5, "pace": False},  # faults, not pace, here
            "slack": {"base_url": dead + "/api/", "mode": "http", "retries": 1,
                      "pace": False},  # its channel's 1 a second would take 40 s here
        }, {"TELEGRAM_BOT_TOKEN": TOKEN, "STRANDED_TOKEN": "stranded-token-0123456789",
            "SLACK_BOT_TOKEN": "xoxb-x", "SLACK_SIGNING_SECRET": "s"})
        await server.start()
        try:
            await _faults_scenario(server, figures, tg_faults, gw_faults, tg)
        finally:
            await server.stop()
            await runner.cleanup()


async def _faults_scenario(server: Server, figures: Figures, tg_faults: Faults,
                           gw_faults: Faults, tg: FakeTelegram) -> None:
    t0 = time.monotonic()
    async with server.http() as http, server.http("stranded-token-0123456789") as stranded:
        made = await gather_limited((create(http, f"f-{i}") for i in range(QUESTIONS)), 16)
        ids = [q["id"] for q in made]

        async def settled() -> list[dict[str, Any]] | None:
            views = await gather_limited(record(http, q) for q in ids)
            ok = all(d["state"] != "sending" for v in views for d in v["deliveries"])
            return views if ok else None
        views = await until(settled, timeout=150, interval=0.5)
        settle_s = time.monotonic() - t0
        states: Counter[str] = Counter()
        for v in views:
            for d in v["deliveries"]:
                platform = d["surface"].rsplit(":", 1)[0]
                states[f"{platform}:{d['state']}"] += 1
                if d["state"] == "failed":
                    assert d["error"], d  # reported with a reason, never silently
        assert states["slack:C0123"] == 0 and states["slack:failed"] == QUESTIONS
        assert states["webhook:dead:failed"] == QUESTIONS
        # The live surfaces still carry (nearly) every prompt despite 30% faults.
        delivered = [v["id"] for v in views if any(d["state"] == "delivered"
                                                   for d in v["deliveries"])]
        assert len(delivered) == QUESTIONS
        # Nobody can be asked when every surface is down: undelivered, at once.
        lone = await create(stranded, "alone")
        alone = await until(lambda: ended(stranded, lone["id"]), timeout=60)
        assert alone["result"] == {"status": "no_answer", "reason": "undelivered"}
        # Answers still work and finalize through the faults.
        acks = await gather_limited((reply(http, "2", q) for q in ids), 8)
        assert all(a.json()["accepted"] for a in acks)

        async def finalized() -> bool:
            vs = await gather_limited(record(http, q) for q in ids)
            return all(d["finalized"] for v in vs for d in v["deliveries"]
                       if d["state"] == "delivered")
        await until(finalized, timeout=120, interval=0.5)
    logs = server.logs()
    figures.add("faults: 30% of Telegram/webhook calls fail (429, 5xx, reset, timeout)",
                questions=QUESTIONS, telegram_calls=tg_faults.calls,
                telegram_faults=dict(tg_faults.injected), gateway_calls=gw_faults.calls,
                gateway_faults=dict(gw_faults.injected), deliveries=dict(states),
                stuck_sending=0, dead_slack_and_dead_channel="failed, reported",
                all_dead="undelivered", retries_logged=logs.count("telegram_retry"),
                settle_s=round(settle_s, 1))
