"""/mcp, with the MCP SDK loaded when the first request for it arrives."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from starlette.types import ASGIApp, Receive, Scope, Send

if TYPE_CHECKING:
    from bridge.core.approvals import Approvals
    from bridge.core.broker import Broker
    from bridge.mcp.origins import OriginGuard


class LazyMcp:
    """The /mcp ASGI app, built on its first request. Importing the MCP SDK takes 0.4 s of CPU
    and 11 MB (bench/README.md): a bridge whose agents use the HTTP API never needs it, and a
    start or restart no longer waits for it. The import runs on a worker thread, so the rest of
    the server keeps answering meanwhile; the SDK's session manager then runs in a task of its
    own until the server stops."""

    def __init__(self, broker: Broker, tokens: dict[str, str], guard: OriginGuard,
                 sessions_per_agent: int = 32, approvals: Approvals | None = None) -> None:
        self.broker = broker
        self.approvals = approvals
        self.tokens = tokens
        self.guard = guard
        self.sessions_per_agent = sessions_per_agent
        self._app: asyncio.Future[ASGIApp] | None = None
        self._runner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._app is None:
            self._app = asyncio.get_running_loop().create_future()
            self._runner = asyncio.create_task(self._run(self._app))
        app = await asyncio.shield(self._app)
        await app(scope, receive, send)

    async def _run(self, ready: asyncio.Future[ASGIApp]) -> None:
        try:
            http = await asyncio.to_thread(importlib.import_module, "bridge.mcp.http")
            app, lifespan = http.mcp_mount(self.broker, self.tokens, self.guard,
                                           sessions_per_agent=self.sessions_per_agent,
                                           approvals=self.approvals)
            async with lifespan(None):
                ready.set_result(app)
                await self._stop.wait()
        except asyncio.CancelledError:
            ready.cancel()
            raise
        except BaseException as exc:  # every request waiting for it, and later ones, fail
            if not ready.done():
                ready.set_exception(exc)
            raise

    @asynccontextmanager
    async def lifespan(self, _: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            self._stop.set()
            if self._runner is not None:
                await asyncio.gather(self._runner, return_exceptions=True)
