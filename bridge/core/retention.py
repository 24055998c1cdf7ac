"""Retention: what ended longer ago than `[store] keep` is deleted, a small batch at a time."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

import structlog

from bridge.store.protocol import Store
from bridge.store.records import now_ms

log = structlog.get_logger("askbridge.retention")


class _Delete(Protocol):
    async def __call__(self, before: int, limit: int) -> int: ...


class Retention:
    """Every `every` seconds, delete questions that ended more than `keep` seconds ago, with
    everything keyed to them, and event-hook events as old.

    Each batch is one short transaction of at most `batch` questions (on SQLite one statement:
    an ask sent meanwhile waits for it on the one connection); after each the pass steps aside
    for as long as the batch took (at least `pause` seconds), so asks and answers waiting on
    the store go first, no write lock is held for long, and the database spends at most about
    half its time deleting however large the backlog. `batch` defaults to the store's own
    (`retention_batch`: ten on SQLite, where an ask waits for a batch, fifty on PostgreSQL).
    Every replica runs it: the store gives replicas purging at once disjoint batches."""

    def __init__(self, store: Store, keep: int | None, *, every: float = 60.0, batch: int | None = None,
                 pause: float = 0.01, audit_keep: int | None = None) -> None:
        self.store = store
        self.keep = keep
        self.audit_keep = audit_keep
        """`[store] audit_keep` in seconds: older audit entries go, oldest first (None: none)."""
        self.every = every
        self.batch = batch or store.retention_batch
        self.pause = pause
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self.keep is not None or self.audit_keep is not None:  # `forever`: nothing to do
            self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def purge(self) -> tuple[int, int]:
        """One pass: (questions, events) deleted; audit entries past `audit_keep` too."""
        await self.purge_audit()
        if self.keep is None:
            return 0, 0
        before = now_ms() - self.keep * 1000
        questions = await self._drain(self.store.delete_ended, before)
        events = await self._drain(self.store.delete_old_events, before)
        await self._drain(self.store.delete_old_approvals, before)
        if questions or events:
            log.info("retention_deleted", questions=questions, events=events)
        return questions, events

    async def purge_audit(self) -> int:
        """Delete audit entries older than `audit_keep`, oldest first; the store keeps the
        last one's hash as the anchor the remaining chain is verified from."""
        if self.audit_keep is None:
            return 0
        gone = await self._drain(self.store.delete_old_audit, now_ms() - self.audit_keep * 1000)
        if gone:
            log.info("retention_deleted_audit", entries=gone)
        return gone

    async def _drain(self, delete: _Delete, before: int) -> int:
        total = 0
        loop = asyncio.get_running_loop()
        while True:
            began = loop.time()
            done = await delete(before, self.batch)
            total += done
            if done < self.batch:
                break
            await asyncio.sleep(max(self.pause, loop.time() - began))
        return total

    async def _run(self) -> None:
        while True:
            try:
                await self.purge()
            except Exception as exc:  # the database away for a moment: the next pass retries
                log.warning("retention_failed", error=type(exc).__name__, detail=str(exc)[:200])
            await asyncio.sleep(self.every)
