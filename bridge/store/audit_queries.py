"""The audit log as SQL: appended in the writer's transaction, chained by hash, read in order."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from bridge.model.canonical import canonical, canonical_loads
from bridge.model.ids import QuestionId
from bridge.store.approval_records import GENESIS, AuditDraft, AuditEntry, entry_hash
from bridge.store.writes import Executor

AUDIT_COLUMNS = "seq, at, kind, approval_id, data, prev, hash"


class _Backend(Protocol):
    row_lock: str

    def _tx(self) -> AbstractAsyncContextManager[Any]: ...

    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]: ...

    async def _lock_audit(self, db: Executor) -> None: ...


def row_to_entry(row: Sequence[Any]) -> AuditEntry:
    seq, at, kind, approval_id, data, prev, hash_ = tuple(row)
    return AuditEntry(int(seq), int(at), kind, QuestionId(approval_id) if approval_id else None,
                      canonical_loads(data), prev, hash_)


class AuditQueries:
    """Append-only: `append` is the one writer (inside another write's transaction), and only
    `delete_old_audit` (retention) removes entries, oldest first, leaving an anchor."""

    async def _lock_audit(self, db: Executor) -> None:
        """Backends with several writers serialize appends here (one chain, no fork)."""

    async def append_audit(self: _Backend, db: Executor, draft: AuditDraft) -> AuditEntry:
        """Append `draft` after the current head, in the caller's transaction `db`."""
        await self._lock_audit(db)
        head = await db.rows("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1")
        if not head:
            head = await db.rows("SELECT seq, hash FROM audit_anchor WHERE id = 1")
        seq, prev = (int(head[0][0]) + 1, str(head[0][1])) if head else (1, GENESIS)
        # Stored as the canonical text, so the entry read back hashes the same everywhere.
        data = canonical_loads(canonical(draft.data))
        entry = AuditEntry(seq, draft.at, draft.kind, draft.approval_id, data, prev,
                           entry_hash(seq, draft.at, draft.kind, draft.approval_id, data, prev))
        await db.execute(f"INSERT INTO audit ({AUDIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (entry.seq, entry.at, entry.kind, entry.approval_id,
                          canonical(data).decode(), entry.prev, entry.hash))
        return entry

    async def audit_entries(self: _Backend, after: int = 0, limit: int = 1000,
                            since: int | None = None) -> list[AuditEntry]:
        """Entries with `seq` above `after` (and `at` at or after `since`, ms), in order."""
        rows = await self._rows(
            f"SELECT {AUDIT_COLUMNS} FROM audit WHERE seq > ? AND at >= ? ORDER BY seq LIMIT ?",
            (after, since if since is not None else -1, limit))
        return [row_to_entry(r) for r in rows]

    async def audit_anchor(self: _Backend) -> tuple[int, str] | None:
        """(seq, hash) of the last entry retention deleted: the new head's `prev`; None if none."""
        rows = await self._rows("SELECT seq, hash FROM audit_anchor WHERE id = 1")
        return (int(rows[0][0]), str(rows[0][1])) if rows else None

    async def delete_old_audit(self: _Backend, before: int, limit: int) -> int:
        """Delete up to `limit` entries written before `before` (ms), oldest first, and move the
        anchor to the last of them, in one transaction; how many went."""
        async with self._tx() as db:
            await self._lock_audit(db)
            rows = await db.rows("SELECT seq, hash FROM audit WHERE at < ? ORDER BY seq LIMIT ?",
                                 (before, limit))
            if not rows:
                return 0
            last_seq, last_hash = int(rows[-1][0]), str(rows[-1][1])
            await db.execute("DELETE FROM audit WHERE seq <= ?", (last_seq,))
            await db.execute(
                "INSERT INTO audit_anchor (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id) "
                "DO UPDATE SET seq = excluded.seq, hash = excluded.hash", (last_seq, last_hash))
            return len(rows)
