"""Retention as SQL: ended questions go oldest first, a small batch per transaction, each once."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

KEYED_TO_A_QUESTION = ("deliveries", "partial_answers", "timers", "message_refs")
"""Every table whose rows belong to one question (its free text included: partial answers)."""


class _Backend(Protocol):
    row_lock: str

    def _tx(self) -> AbstractAsyncContextManager[Any]: ...


def _marks(ids: Sequence[Any]) -> str:
    return ", ".join("?" * len(ids))


class RetentionQueries:
    """The `Store` retention methods for any SQL backend that provides `_tx()`.

    A batch is one short transaction; `row_lock` (PostgreSQL: `FOR UPDATE SKIP LOCKED`) hands
    replicas purging at the same time disjoint batches, so each row is deleted exactly once.
    """

    row_lock = ""
    """Appended to a batch's SELECT: how a backend with several writers claims its rows."""
    retention_batch = 50
    """Ended questions per batch, each batch one transaction."""

    async def delete_ended(self: _Backend, before: int, limit: int) -> int:
        """Delete up to `limit` questions that ended before `before` (ms), oldest first, with
        everything keyed to them; how many questions went."""
        async with self._tx() as db:
            rows = await db.rows(
                "SELECT id FROM questions WHERE status <> 'pending' AND resolved_at < ? "
                "ORDER BY resolved_at LIMIT ?" + self.row_lock, (before, limit))
            ids = [r[0] for r in rows]
            if ids:
                for table in KEYED_TO_A_QUESTION:  # before the question: they reference it
                    await db.execute(
                        f"DELETE FROM {table} WHERE question_id IN ({_marks(ids)})", ids)
                await db.execute(f"DELETE FROM questions WHERE id IN ({_marks(ids)})", ids)
            return len(ids)

    async def delete_old_events(self: _Backend, before: int, limit: int) -> int:
        """Delete up to `limit` event-hook events enqueued before `before` (ms) that were
        delivered or given up (their bodies hold answers); how many went."""
        async with self._tx() as db:
            rows = await db.rows(
                "SELECT id, url FROM event_outbox WHERE enqueued_at < ? "
                "AND (done_at IS NOT NULL OR next_at < 0) ORDER BY enqueued_at LIMIT ?"
                + self.row_lock, (before, limit))
            if rows:
                pairs = ", ".join("(?, ?)" for _ in rows)
                await db.execute(f"DELETE FROM event_outbox WHERE (id, url) IN (VALUES {pairs})",
                                 [v for row in rows for v in row])
            return len(rows)
