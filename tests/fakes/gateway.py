"""A fake plain-text gateway (SMS, e-mail bridge) that receives askbridge's signed webhook posts."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from bridge import SIGNATURE_HEADER, verify_signature


@dataclass
class Gateway:
    secret: str
    url: str = ""
    received: list[dict[str, Any]] = field(default_factory=list)
    bad_signatures: int = 0
    fail_next: list[int] = field(default_factory=list)
    """HTTP statuses to answer the next posts with, in order (then 200 again)."""
    hold: asyncio.Event | None = None
    """When set to an event, every post waits for it before it is answered."""
    in_flight: int = 0
    most_in_flight: int = 0

    def prompts(self) -> list[dict[str, Any]]:
        return [p for p in self.received if p["kind"] == "prompt"]

    def reminders(self) -> list[dict[str, Any]]:
        return [p for p in self.received if p["kind"] == "reminder"]

    def statuses(self) -> list[dict[str, Any]]:
        return [p for p in self.received if p["kind"] == "status"]

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        if not verify_signature(self.secret, body, request.headers.get(SIGNATURE_HEADER)):
            self.bad_signatures += 1
            return web.Response(status=401)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if self.hold is not None:
                await self.hold.wait()
            if self.fail_next:
                return web.Response(status=self.fail_next.pop(0))
            self.received.append(json.loads(body))
            return web.json_response({"ok": True})
        finally:
            self.in_flight -= 1


@asynccontextmanager
async def gateway(secret: str) -> AsyncIterator[Gateway]:
    gw = Gateway(secret)
    app = web.Application()
    app.router.add_post("/send", gw.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    gw.url = f"http://127.0.0.1:{port}/send"
    try:
        yield gw
    finally:
        await runner.cleanup()
