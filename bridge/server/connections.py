"""Slow clients cannot take the server: headers come within a deadline, connections are capped
below the descriptor limit, and at the cap the oldest one still waiting for headers makes room.

uvicorn times out idle keep-alive connections but not a request whose headers trickle in, and
accepts until the process runs out of descriptors (then asyncio logs a traceback per failed
accept, many thousand a second). Here each connection is stamped while it waits for a request's
headers; a connection over the cap closes the oldest such one (a flood of slow clients cannot
shut out a real one, whose headers arrive at once, and a request being served is never cut).
"""

from __future__ import annotations

import asyncio
import errno
import resource
import time
from asyncio import TimerHandle
from typing import Any, ClassVar

import structlog
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = structlog.get_logger("askbridge.http")
HEADER_SECONDS = 10.0
"""A request whose headers are not complete this long after its first byte (or after the
connection opened) is closed."""
WARN_EVERY = 60.0
"""Seconds between two warnings that the process is out of file descriptors."""
OUT_OF_DESCRIPTORS = (errno.EMFILE, errno.ENFILE)
BACKLOG = 2048
"""uvicorn's listen backlog."""
OWN_DESCRIPTORS = 64
"""About what the process holds besides its clients (measured: 30-40 at rest)."""


def descriptor_reserve(limit: int) -> int:
    """Descriptors kept for everything but clients: the store, platform and hook clients, logs,
    and the connections accepted in a burst before the cap closes them."""
    return max(100, limit // 8)


def descriptor_limit() -> int | None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


def connection_cap(configured: int) -> int:
    """`[server] max_connections`, lowered to what the descriptor limit allows with a reserve."""
    limit = descriptor_limit()
    if limit is None:
        return configured
    return max(1, min(configured, limit - descriptor_reserve(limit)))


def accept_burst(cap: int) -> int:
    """How many connections one wake-up of the listening socket accepts (asyncio uses the listen
    backlog for it, 2048 by default in uvicorn). The cap only closes them a few loop turns later,
    and meanwhile the socket can wake up twice more: three bursts must fit in what the cap
    leaves of the descriptors, with room for the process's own."""
    limit = descriptor_limit()
    if limit is None:
        return BACKLOG
    return max(8, min(BACKLOG, (limit - cap - OWN_DESCRIPTORS) // 3))


class Guard:
    """The state every connection of one server shares: its limits and who waits for headers."""

    def __init__(self, max_connections: int, header_seconds: float = HEADER_SECONDS) -> None:
        self.max_connections = max_connections
        self.header_seconds = header_seconds
        self.waiting: dict[GuardedHttp, float] = {}
        """Connections waiting for a request's headers, oldest first (dicts keep order)."""
        self.evicted = 0
        self._warned_at = -WARN_EVERY

    def oldest_waiting(self, besides: GuardedHttp) -> GuardedHttp | None:
        return next((c for c in self.waiting if c is not besides), None)

    def handle_loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """asyncio's exception handler: running out of descriptors is one warning a minute, not
        a traceback for every accept that fails."""
        error = context.get("exception")
        if isinstance(error, ValueError) and "_start_serving" in repr(context.get("handle")):
            return  # asyncio's retry of accepting after running out, once the socket is closed
        if not (isinstance(error, OSError) and error.errno in OUT_OF_DESCRIPTORS):
            loop.default_exception_handler(context)
            return
        now = time.monotonic()
        if now - self._warned_at >= WARN_EVERY:
            self._warned_at = now
            log.warning("out_of_file_descriptors", what=context.get("message", ""),
                        fix="raise the limit (ulimit -n, LimitNOFILE=) or lower "
                        "[server] max_connections")


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol with a header deadline and the connection cap."""

    guard: ClassVar[Guard]
    _late: TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._wait_for_headers()
        if len(self.connections) > self.guard.max_connections:
            oldest = self.guard.oldest_waiting(besides=self)
            if oldest is None:  # every other one is being served: this one cannot be
                self.transport.close()
                return
            self.guard.evicted += 1
            oldest.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._wait_for_headers()

    def on_headers_complete(self) -> None:
        self._stop_waiting()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():  # idle on keep-alive: waiting for the next request
            self.guard.waiting[self] = time.monotonic()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)

    def _wait_for_headers(self) -> None:
        self.guard.waiting.setdefault(self, time.monotonic())
        if self._late is None:
            self._late = self.loop.call_later(self.guard.header_seconds, self._headers_late)

    def _stop_waiting(self) -> None:
        self.guard.waiting.pop(self, None)
        if self._late is not None:
            self._late.cancel()
            self._late = None

    def _headers_late(self) -> None:
        self._late = None
        if self in self.guard.waiting and not self.transport.is_closing():
            self.transport.close()


def guarded_protocol(guard: Guard) -> type[GuardedHttp]:
    """The protocol class for one server (uvicorn makes one instance per connection)."""
    return type("GuardedHttp", (GuardedHttp,), {"guard": guard})
