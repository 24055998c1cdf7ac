"""The store's queries, written once for every SQL backend; backends supply a connection."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from importlib import resources
from typing import Any, TypeVar, cast

from bridge.model.ids import AgentName, MessageRef, QuestionId, SessionKey, SurfaceId
from bridge.model.text_faults import text_fault
from bridge.store import writes
from bridge.store.adapter_state_queries import AdapterStateQueries
from bridge.store.approval_queries import ApprovalQueries
from bridge.store.outbox_queries import OutboxQueries
from bridge.store.reach_queries import ReachQueries
from bridge.store.records import (
    DeliveryRecord,
    DeliveryState,
    PendingConflict,
    QuestionRecord,
    Resolution,
    SessionInfo,
    TimerRecord,
)
from bridge.store.retention_queries import RetentionQueries
from bridge.store.rows import D_COLUMNS, DELIVERY_COLUMNS, Q_COLUMNS, row_to_delivery, row_to_question
from bridge.store.writes import QUESTION_COLUMNS, Executor, Row, Step, Write, run

FIND_DELIVERY = (
    # Two lookups by key, not one OR: planners answer `surface = ? AND (message_ref = ? OR …)`
    # by walking every delivery ever made on the surface.
    f"SELECT {DELIVERY_COLUMNS} FROM deliveries WHERE surface = ? AND message_ref = ? "
    f"UNION ALL SELECT {DELIVERY_COLUMNS} FROM deliveries WHERE surface = ? AND question_id = "
    "(SELECT question_id FROM message_refs WHERE surface = ? AND message_ref = ?) LIMIT 1")
ChangeHandler = Callable[[str, QuestionId], None]
"""Receives `created`, `delivery` or `resolved` and the question id."""
T = TypeVar("T")


def opened(handle: T | None) -> T:
    """A backend's connection or pool, once `open()` made it."""
    if handle is None:
        raise RuntimeError("the store is not open")
    return handle


def migrations(dialect: str) -> list[tuple[int, str]]:
    """Numbered SQL migrations shipped in `bridge/store/migrations/`: `NNNN_name.sql` for every
    backend, `NNNN_name.<dialect>.sql` for one (`sqlite`, `postgres`)."""
    found = []
    for entry in resources.files("bridge.store.migrations").iterdir():
        parts = entry.name.split(".")
        if parts[-1] == "sql" and (len(parts) == 2 or parts[1:-1] == [dialect]):
            found.append((int(entry.name.split("_", 1)[0]), entry.read_text(encoding="utf-8")))
    return sorted(found)


def statements(sql: str) -> list[str]:
    """The statements of a migration; a trigger's or a function's body (`BEGIN … END;`,
    `$$ … $$`) stays whole."""
    lines = [ln for ln in sql.splitlines() if not ln.strip().startswith("--")]
    found: list[str] = []
    pending = ""
    for piece in "\n".join(lines).split(";"):
        pending += piece + ";"
        if pending.count("$$") % 2 == 0 and sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                found.append(pending.strip()[:-1].strip())
            pending = ""
    if pending.strip(" \n;"):
        found.append(pending.strip(" \n;"))
    return found


class SqlStore(AdapterStateQueries, ReachQueries, OutboxQueries, RetentionQueries, ApprovalQueries):
    """Every `Store` method as SQL; subclasses provide `_tx()`, `_read()` and `_is_conflict()`
    (and `_alone()`, `_notice()` where they can do better than the defaults)."""

    shared = False
    """Whether other processes write to the same database (replicas)."""
    dialect = "sql"
    """Which `NNNN_name.<dialect>.sql` migrations are this backend's own."""

    def _tx(self) -> AbstractAsyncContextManager[Executor]:
        """A write transaction (serialized against other writers)."""
        raise TypeError("SqlStore is abstract")

    def transaction(self) -> AbstractAsyncContextManager[Executor]:
        """A write transaction the caller holds open for as long as it needs: its statements
        commit together or not at all, and lone writes sent meanwhile neither join it nor are
        rolled back with it (the contract suite holds one open while others arrive)."""
        return self._tx()

    def _alone(self) -> AbstractAsyncContextManager[Executor]:
        """A connection for one statement that is atomic by itself (still serialized against
        other writers); backends without a cheaper way run it as a transaction."""
        return self._tx()

    def _read(self) -> AbstractAsyncContextManager[Executor]:
        """A connection for reads."""
        raise TypeError("SqlStore is abstract")

    def _is_conflict(self, exc: Exception) -> bool:
        raise TypeError("SqlStore is abstract")

    async def _lock_migrations(self, db: Executor) -> None:
        """Backends with several writers (replicas) take a lock here."""

    def _notice(self, event: str, question_id: QuestionId) -> Step | None:
        """The statement that tells other processes sharing the database, on commit (none for
        a single process)."""
        return None

    async def _notify(self, db: Executor, event: str, question_id: QuestionId) -> None:
        if (notice := self._notice(event, question_id)) is not None:
            await run(db, notice)

    def _told(self, step: Step, notice: Step) -> Step | None:
        """`step` and its `notice` as one statement, where the backend can say both at once."""
        return None

    async def _write(self, write: Write) -> int:
        """Run `write` as one transaction; the rows its first statement changed.

        A lone statement (with its notice folded in, where the backend can) needs no
        BEGIN/COMMIT of its own: one round trip (SQLite: one hop to aiosqlite's thread)
        instead of three or more.
        """
        notice = self._notice(*write.event) if write.event else None
        if not write.then and not write.first.many:
            lone = write.first if notice is None else self._told(write.first, notice)
            if lone is not None:
                async with self._alone() as db:
                    return await run(db, lone)
        async with self._tx() as db:
            changed = await run(db, write.first)
            if changed:
                for step in (*write.then, *([notice] if notice else [])):
                    await run(db, step)
            return changed

    async def listen(self, handler: ChangeHandler) -> None:
        """Call `handler(event, question_id)` for changes committed by other processes."""

    async def try_lead(self) -> bool:
        """A single process always leads."""
        return True

    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        async with self._read() as db:
            return await db.rows(sql, args)

    async def migrations_missing(self) -> list[int]:
        """Shipped migrations this database lacks (none when current); raises if unreachable."""
        applied = {int(r[0]) for r in await self._rows("SELECT version FROM schema_version")}
        return [version for version, _ in migrations(self.dialect) if version not in applied]

    async def migrate(self) -> None:
        async with self._tx() as db:
            await self._lock_migrations(db)
            await db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY)")
            # Every migration not applied yet, not only those above the highest: branches that
            # land together may number theirs out of order.
            applied = {int(r[0]) for r in await db.rows("SELECT version FROM schema_version")}
            for version, sql in migrations(self.dialect):
                if version not in applied:
                    for statement in statements(sql):
                        await db.execute(statement)
                    await db.execute("INSERT INTO schema_version VALUES (?)", (version,))

    async def create_question(
        self, record: QuestionRecord, surfaces: list[SurfaceId], timers: Sequence[TimerRecord] = ()
    ) -> None:
        try:
            await self._write(writes.create_question(record, surfaces, timers))
        except Exception as exc:
            if self._is_conflict(exc):
                raise PendingConflict(record.session) from exc
            raise

    async def set_delivery(
        self, question_id: QuestionId, surface: SurfaceId, state: DeliveryState,
        message_ref: MessageRef | None = None, error: str | None = None,
    ) -> None:
        await self._write(writes.set_delivery(question_id, surface, state, message_ref, error))

    async def resolve(self, question_id: QuestionId, resolution: Resolution) -> bool:
        return await self._write(writes.resolve(question_id, resolution)) == 1

    async def get_question(self, question_id: QuestionId) -> QuestionRecord | None:
        if text_fault(question_id) is not None:  # no id holds one; PostgreSQL would raise
            return None
        rows = await self._rows(f"SELECT {QUESTION_COLUMNS} FROM questions WHERE id = ?",
                                (question_id,))
        return row_to_question(rows[0]) if rows else None

    async def deliveries(self, question_id: QuestionId) -> list[DeliveryRecord]:
        rows = await self._rows(
            f"SELECT {DELIVERY_COLUMNS} FROM deliveries WHERE question_id = ? ORDER BY position",
            (question_id,))
        return [row_to_delivery(r) for r in rows]

    async def deliveries_for(
        self, question_ids: Sequence[QuestionId]
    ) -> dict[QuestionId, list[DeliveryRecord]]:
        found: dict[QuestionId, list[DeliveryRecord]] = {q: [] for q in question_ids}
        for start in range(0, len(question_ids), 500):  # under every SQLite's variable limit
            chunk = question_ids[start:start + 500]
            marks = ", ".join("?" * len(chunk))
            rows = await self._rows(
                f"SELECT {DELIVERY_COLUMNS} FROM deliveries WHERE question_id IN ({marks}) "
                "ORDER BY question_id, position", tuple(chunk))
            for row in rows:
                delivery = row_to_delivery(row)
                found[delivery.question_id].append(delivery)
        return found

    async def claim_finalization(
        self, question_id: QuestionId, surface: SurfaceId, lease_ms: int
    ) -> bool:
        return await self._write(writes.claim_finalization(question_id, surface, lease_ms)) == 1

    async def release_finalization_claims(self) -> int:
        return await self._write(writes.RELEASE_FINALIZATION_CLAIMS)

    async def mark_finalized(self, question_id: QuestionId, surface: SurfaceId) -> bool:
        return await self._write(writes.mark_finalized(question_id, surface)) == 1

    async def pending_questions(self) -> list[QuestionRecord]:
        rows = await self._rows(f"SELECT {QUESTION_COLUMNS} FROM questions "
                                "WHERE status = 'pending' ORDER BY expires_at")
        return [row_to_question(r) for r in rows]

    async def pending_deadlines(self) -> list[tuple[QuestionId, int]]:
        rows = await self._rows("SELECT id, expires_at FROM questions WHERE status = 'pending'")
        return [(QuestionId(r[0]), int(r[1])) for r in rows]

    async def pending_deliveries(self) -> list[DeliveryRecord]:
        """Every delivery of every pending question (one query, for restart)."""
        rows = await self._rows(
            f"SELECT {D_COLUMNS} FROM deliveries d JOIN questions q ON q.id = d.question_id "
            "WHERE q.status = 'pending' ORDER BY d.question_id, d.position")
        return [row_to_delivery(r) for r in rows]

    async def pending_on_surface(
        self, surface: SurfaceId, state: DeliveryState = "delivered", limit: int | None = None
    ) -> list[QuestionRecord]:
        rows = await self._rows(
            # From the few pending questions to each one's delivery by its key, never from the
            # surface's every past delivery: SQLite keeps a CROSS JOIN's order as written.
            f"SELECT {Q_COLUMNS} FROM questions q CROSS JOIN deliveries d "
            "WHERE d.question_id = q.id AND q.status = 'pending' AND d.surface = ? AND d.state = ? "
            "ORDER BY q.created_at, q.id" + (" LIMIT ?" if limit else ""),
            (surface, state, limit) if limit else (surface, state))
        return [row_to_question(r) for r in rows]

    async def find_delivery(
        self, surface: SurfaceId, message_ref: MessageRef
    ) -> DeliveryRecord | None:
        """The delivery whose prompt, or one of whose reminders, is `message_ref` on `surface`."""
        rows = await self._rows(FIND_DELIVERY,
                                (surface, message_ref, surface, surface, message_ref))
        return row_to_delivery(rows[0]) if rows else None

    async def unfinalized(self) -> list[DeliveryRecord]:
        rows = await self._rows(
            f"SELECT {D_COLUMNS} FROM deliveries d JOIN questions q ON q.id = d.question_id "
            "WHERE q.status <> 'pending' AND d.state = 'delivered' AND d.finalized = 0")
        return [row_to_delivery(r) for r in rows]

    async def save_partial(self, question_id: QuestionId, answers: dict[str, list[str]]) -> None:
        await self._write(writes.save_partial(question_id, answers))

    async def partial(self, question_id: QuestionId) -> dict[str, list[str]]:
        """Only a pending question's: its resolution ends them (see `writes.resolve`)."""
        rows = await self._rows(
            "SELECT p.question_key, p.answers FROM partial_answers p "
            "JOIN questions q ON q.id = p.question_id "
            "WHERE p.question_id = ? AND q.status = 'pending'", (question_id,))
        return {str(k): cast(list[str], json.loads(v)) for k, v in rows}

    async def timeline(
        self, agent: AgentName, session: SessionKey, limit: int = 100
    ) -> list[QuestionRecord]:
        rows = await self._rows(
            f"SELECT {QUESTION_COLUMNS} FROM questions WHERE agent = ? AND session = ? "
            "ORDER BY created_at DESC, id DESC LIMIT ?", (agent, session, limit))
        return [row_to_question(r) for r in rows]

    async def sessions(self, agent: AgentName) -> list[SessionInfo]:
        rows = await self._rows(
            "SELECT session, SUM(CASE WHEN status = 'pending' THEN 1 ELSE 0 END), "
            "MAX(created_at) FROM questions WHERE agent = ? GROUP BY session "
            "ORDER BY MAX(created_at) DESC", (agent,))
        return [SessionInfo(SessionKey(s), int(p), int(t)) for s, p, t in rows]

