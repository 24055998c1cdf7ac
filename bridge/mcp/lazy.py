"""/mcp, with the MCP SDK loaded when the first request for it arrives."""

from __future__ import annotations

import asyncio
import importlib
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from starlette.types import ASGIApp, Receive, Scope, Send

if TYPE_CHECKING:
    from bridge.core.approvals import Approvals
    from bridge.core.broker import Broker
    from bridge.core.card_links import CardLinks
    from bridge.core.receiver import Receiver
    from bridge.mcp.origins import OriginGuard
    from bridge.runtime.config import McpConfig
    from bridge.store.protocol import Store


async def request_state_key(store: Store, secret: str | None) -> str:
    """The key that seals 2026-07-28 `requestState`, the same on every replica: the configured
    secret, else one made by the first replica to need it and kept in the store they share."""
    if secret:
        return secret
    return await store.state_put_new("mcp", "request_state_key", secrets.token_urlsafe(48))


class LazyMcp:
    """The /mcp ASGI app, built on its first request. Importing the MCP SDK takes 0.4 s of CPU
    and 11 MB (bench/README.md): a bridge whose agents use the HTTP API never needs it, and a
    start or restart no longer waits for it. The import runs on a worker thread, so the rest of
    the server keeps answering meanwhile; the SDK's session manager then runs in a task of its
    own until the server stops."""

    def __init__(self, broker: Broker, receiver: Receiver, tokens: dict[str, str],
                 guard: OriginGuard, config: McpConfig, state_secret: str | None = None,
                 progress_seconds: float = 10.0, approvals: Approvals | None = None,
                 links: CardLinks | None = None) -> None:
        self.links = links
        self.broker = broker
        self.approvals = approvals
        self.receiver = receiver
        self.tokens = tokens
        self.guard = guard
        self.config = config
        self.state_secret = state_secret
        self.progress_seconds = progress_seconds
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
            key = await request_state_key(self.broker.store, self.state_secret)
            app, lifespan = http.mcp_mount(
                self.broker, self.receiver, self.tokens, self.guard, key,
                interval=self.progress_seconds,
                sessions_per_agent=self.config.sessions_per_agent,
                reattach_seconds=self.config.reattach_seconds, approvals=self.approvals,
                links=self.links)
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
