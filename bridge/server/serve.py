"""uvicorn after the bridge has started, told to drain the broker first when it stops (so a
graceful stop cancels nothing), and to guard its connections (bridge.server.connections)."""

from __future__ import annotations

import asyncio
import errno
import gc
import socket
from collections.abc import Callable

import uvicorn

from bridge.runtime.config import ConfigError
from bridge.server.app import create_app
from bridge.server.composition import Bridge
from bridge.server.connections import (
    HEADER_SECONDS,
    Guard,
    accept_burst,
    connection_cap,
    guarded_protocol,
)
from bridge.store.lock import StoreLock
from bridge.text.i18n import tr

GC_YOUNG = 10_000
"""Allocations between two collections of the youngest generation (Python's default: 700)."""


def settle_gc() -> None:
    """Garbage-collector settings for a long-running server, set once it is built.

    Everything alive by then (modules, config, the app) is frozen out of every collection. The
    youngest generation is collected after GC_YOUNG allocations instead of 700, so the objects
    of a request or a send, which live a few milliseconds, die before a collection would keep
    them, and no longer pile up in the oldest generation. Its full collections walk every
    pending question and stop the event loop while they do: with Python's defaults a run of
    10,000 pending questions with reminders made 32 of them, up to 0.75 s each (10.4 s in all);
    with these, 2 (0.6 s in all)."""
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG, middle, oldest)


def port_problem(host: str, port: int) -> str | None:
    """Why `host:port` cannot be listened on, or None; checked before anything starts."""
    if port == 0:
        return None
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port,
                                                             type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        return tr("en", "cannot listen on {host}: {why}; check server.host or --host.",
                  host=host, why=exc.strerror)
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return tr("en", "port {port} on {host} is already in use (another askbridge?); "
                          "stop that process or choose another port with --port.",
                          port=port, host=host)
            return tr("en", "cannot listen on {host}:{port}: {why}.", host=host, port=port,
                      why=exc.strerror)
    return None


class BridgeServer(uvicorn.Server):
    """Starts the bridge before it listens: a credential a platform refuses ends the start with
    that one sentence, before any banner and before the port is taken."""

    def __init__(self, bridge: Bridge, host: str, port: int,
                 listening: Callable[[], None] | None = None,
                 header_seconds: float = HEADER_SECONDS) -> None:
        cap = connection_cap(bridge.config.server.max_connections)
        self.guard = Guard(cap, header_seconds)
        super().__init__(uvicorn.Config(
            create_app(bridge), host=host, port=port, log_config=None, access_log=False,
            lifespan="on", timeout_graceful_shutdown=5, http=guarded_protocol(self.guard),
            backlog=accept_burst(cap),
            # Longer than load balancers' and clients' idle pools (60 s is common), so the
            # server never closes a kept-alive connection just as a client reuses it.
            timeout_keep_alive=75,
        ))
        self.bridge = bridge
        self.listening = listening

    def run_bridge(self) -> str | None:
        """Serve until stopped; None, or why the bridge could not start (nothing is left running)."""
        with asyncio.Runner(loop_factory=self.config.get_loop_factory()) as runner:
            return runner.run(self._run_bridge())

    async def _run_bridge(self) -> str | None:
        lock = StoreLock.for_config(self.bridge.config)
        try:
            if lock is not None:
                lock.acquire()
            await self.bridge.start()  # the app's lifespan then finds it started
            await self.serve()
        except ConfigError as exc:
            return str(exc)
        finally:
            if lock is not None:
                lock.release()
        return None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().set_exception_handler(self.guard.handle_loop_error)
        await super().startup(sockets)
        if self.started and self.listening is not None:
            self.listening()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.bridge.broker.drain()
        await super().shutdown(sockets)
