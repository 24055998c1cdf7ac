"""Leadership for long connections: one replica polls Telegram, holds the Discord gateway, …"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence

import structlog

from bridge.model.adapter import LongConnection
from bridge.store.protocol import Store

log = structlog.get_logger("askbridge.leader")


class Leader:
    """Checks the store's lease every `interval` seconds; connects on gaining it, drops on loss."""

    def __init__(self, store: Store, connections: Sequence[tuple[str, LongConnection]],
                 interval: float = 1.0) -> None:
        self.store = store
        self.connections = list(connections)
        self.interval = interval
        self.leading = False
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if not self.connections:
            return
        await self._tick()
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self.leading:
            await self._drop()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self._tick()
            except Exception:
                log.exception("leader_tick_failed")

    async def _tick(self) -> None:
        leads = await self.store.try_lead()
        if leads and not self.leading:
            self.leading = True
            log.info("leader_acquired", connections=[name for name, _ in self.connections])
            for name, conn in self.connections:
                try:
                    await conn.connect()
                except Exception as exc:  # the adapter's message says what to change
                    log.error("long_connection_failed", platform=name,
                              error=str(exc) or type(exc).__name__)
        elif not leads and self.leading:
            log.warning("leader_lost")
            await self._drop()

    async def _drop(self) -> None:
        self.leading = False
        for name, conn in self.connections:
            try:
                await asyncio.wait_for(conn.disconnect(), 10)
            except Exception:
                log.exception("long_connection_close_failed", platform=name)
