"""The event hooks' outbox as SQL: every event kept until its receiver took it or it was given up."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from bridge.store.records import OutboxEvent, now_ms
from bridge.store.writes import Step, Write

EVENT_COLUMNS = "id, url, type, body, attempts, next_at"


class _Backend(Protocol):
    async def _write(self, write: Write) -> int: ...

    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]: ...


def _event(row: Sequence[Any]) -> OutboxEvent:
    eid, url, kind, body, attempts, next_at = tuple(row)
    return OutboxEvent(str(eid), str(url), str(kind), str(body), int(attempts), int(next_at))


class OutboxQueries:
    """The `Store` outbox methods for any SQL backend that provides `_write()` and `_rows()`."""

    async def enqueue_events(self: _Backend, events: Sequence[OutboxEvent]) -> None:
        """Each stamped with when it was enqueued: retention removes it by that, once it ended."""
        now = now_ms()
        await self._write(Write(Step(
            f"INSERT INTO event_outbox ({EVENT_COLUMNS}, enqueued_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING",
            [(e.id, e.url, e.type, e.body, e.attempts, e.next_at, now) for e in events],
            many=True)))

    async def due_events(self: _Backend, now: int, limit: int) -> list[OutboxEvent]:
        rows = await self._rows(
            f"SELECT {EVENT_COLUMNS} FROM event_outbox WHERE done_at IS NULL AND next_at >= 0 "
            "AND next_at <= ? "
            "ORDER BY next_at LIMIT ?", (now, limit))
        return [_event(r) for r in rows]

    async def next_event_at(self: _Backend) -> int | None:
        rows = await self._rows(
            "SELECT MIN(next_at) FROM event_outbox WHERE done_at IS NULL AND next_at >= 0")
        return int(rows[0][0]) if rows and rows[0][0] is not None else None

    async def claim_event(self: _Backend, event: OutboxEvent, until: int) -> bool:
        return await self._write(Write(Step(
            "UPDATE event_outbox SET next_at = ? WHERE id = ? AND url = ? AND next_at = ? "
            "AND done_at IS NULL", (until, event.id, event.url, event.next_at)))) == 1

    async def event_tried(
        self: _Backend, event: OutboxEvent, *, done: bool, next_at: int | None, error: str | None
    ) -> None:
        """`next_at` None without `done`: given up (kept with its error, never tried again)."""
        await self._write(Write(Step(
            "UPDATE event_outbox SET attempts = attempts + 1, done_at = ?, next_at = ?, "
            "error = ? WHERE id = ? AND url = ?",
            (now_ms() if done else None, next_at if next_at is not None else -1, error,
             event.id, event.url))))
