"""A slow homeserver, for chosen calls: a loopback proxy in front of the real Synapse that holds
the requests a test picks until the test lets them go, and passes everything else straight on."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import TracebackType

import aiohttp
from aiohttp import web

PASSED_HEADERS = ("Authorization", "Content-Type")


class HeldCalls:
    """`async with HeldCalls(synapse_url, pick) as proxy`: point the bridge at `proxy.url`."""

    def __init__(self, upstream: str, pick: Callable[[str, str, bytes], bool]) -> None:
        self.upstream = upstream
        self.pick = pick
        """(method, path with query, body) → hold this request?"""
        self.holding = asyncio.Event()
        """Set once a request is being held."""
        self._gone = asyncio.Event()
        self._forward = True
        self._runner: web.AppRunner | None = None
        self._http: aiohttp.ClientSession | None = None
        self.url = ""

    def let_go(self, forward: bool = True) -> None:
        """Hold nothing more; send the held requests on, or (`forward=False`) answer them with a
        503 that never reached the homeserver."""
        self._forward = forward
        self._gone.set()

    async def _pass(self, request: web.Request) -> web.Response:
        body = await request.read()
        if not self._gone.is_set() and self.pick(request.method, request.raw_path, body):
            self.holding.set()
            await self._gone.wait()
            if not self._forward:
                return web.Response(status=503, text="dropped by the test")
        assert self._http is not None
        headers = {k: request.headers[k] for k in PASSED_HEADERS if k in request.headers}
        async with self._http.request(request.method, self.upstream + request.raw_path,
                                      data=body, headers=headers) as got:
            return web.Response(status=got.status, body=await got.read(),
                                content_type=got.content_type)

    async def __aenter__(self) -> HeldCalls:
        app = web.Application(client_max_size=1 << 24)
        app.router.add_route("*", "/{tail:.*}", self._pass)
        self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120))
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self.let_go(forward=False)
        assert self._runner is not None and self._http is not None
        await self._runner.cleanup()
        await self._http.close()
