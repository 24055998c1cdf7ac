"""The store's queries, written once for every SQL backend; backends supply a connection."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from functools import lru_cache
from importlib import resources
from typing import Any, Protocol, cast

from bridge.contract import AskRequest, AskResult
from bridge.ids import AgentName, MessageRef, QuestionId, SessionKey, SurfaceId, UserRef
from bridge.store.adapter_state import AdapterStateQueries
from bridge.store.outbox import OutboxQueries
from bridge.store.reach import ReachQueries
from bridge.store.records import (
    AnsweredBy,
    DeliveryRecord,
    DeliveryState,
    PendingConflict,
    QuestionRecord,
    Resolution,
    SessionInfo,
    TimerRecord,
    now_ms,
)

QUESTION_COLUMNS = (
    "id, agent, session, request, status, reason, result, answered_surface, answered_user, "
    "summary, created_at, expires_at, resolved_at"
)
_Q_COLUMNS = ", ".join(f"q.{c.strip()}" for c in QUESTION_COLUMNS.split(","))
DELIVERY_COLUMNS = (
    "question_id, surface, state, message_ref, error, finalized, tier, delivered_at, reminders")
_D_COLUMNS = ", ".join(f"d.{c.strip()}" for c in DELIVERY_COLUMNS.split(","))
Row = Sequence[Any]
ChangeHandler = Callable[[str, QuestionId], None]
"""Receives `created`, `delivery` or `resolved` and the question id."""


class Executor(Protocol):
    """One connection inside a transaction; SQL uses `?` placeholders on every backend."""

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        """Run a statement; return the number of rows it changed."""
        ...

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None: ...

    async def rows(self, sql: str, args: Sequence[Any] = ()) -> list[Row]: ...


INSERT_QUESTION = (
    f"INSERT INTO questions ({QUESTION_COLUMNS}) "
    "VALUES (?, ?, ?, ?, 'pending', NULL, NULL, NULL, NULL, NULL, ?, ?, NULL)")
INSERT_DELIVERY = (
    "INSERT INTO deliveries (question_id, surface, position, state, updated_at) "
    "VALUES (?, ?, ?, 'sending', ?)")
INSERT_TIMER = "INSERT INTO timers (question_id, kind, seq, due_at) VALUES (?, ?, ?, ?)"
UPDATE_DELIVERY = (
    "UPDATE deliveries SET state = ?, message_ref = ?, error = ?, updated_at = ?, "
    "delivered_at = ? WHERE question_id = ? AND surface = ?")
RESOLVE_QUESTION = (
    "UPDATE questions SET status = ?, reason = ?, result = ?, answered_surface = ?, "
    "answered_user = ?, summary = ?, resolved_at = ? WHERE id = ? AND status = 'pending'")
DELETE_PARTIALS = "DELETE FROM partial_answers WHERE question_id = ?"
CLAIM_FINALIZATION = (
    "UPDATE deliveries SET finalize_claimed_at = ? WHERE question_id = ? AND surface = ? "
    "AND finalized = 0 AND (finalize_claimed_at IS NULL OR finalize_claimed_at <= ?)")
MARK_FINALIZED = (
    "UPDATE deliveries SET finalized = 1, updated_at = ? "
    "WHERE question_id = ? AND surface = ? AND finalized = 0")


def question_args(record: QuestionRecord) -> tuple[Any, ...]:
    return (record.id, record.agent, record.session,
            record.request.model_dump_json(by_alias=True), record.created_at, record.expires_at)


def delivery_args(record: QuestionRecord, surfaces: list[SurfaceId]) -> list[tuple[Any, ...]]:
    return [(record.id, s, i, record.created_at) for i, s in enumerate(surfaces)]


def update_delivery_args(
    question_id: QuestionId, surface: SurfaceId, state: DeliveryState,
    message_ref: MessageRef | None, error: str | None,
) -> tuple[Any, ...]:
    now = now_ms()
    return (state, message_ref, error, now, now if state == "delivered" else None, question_id,
            surface)


def timer_args(timers: Sequence[TimerRecord]) -> list[tuple[Any, ...]]:
    return [(t.question_id, t.kind, t.seq, t.due_at) for t in timers]


def resolve_args(question_id: QuestionId, resolution: Resolution) -> tuple[Any, ...]:
    result, by = resolution.result, resolution.answered_by
    return (result.status, result.reason, json.dumps(result.to_json()),
            by.surface if by else None, by.user if by else None, resolution.summary,
            resolution.resolved_at, question_id)


@lru_cache(maxsize=1024)
def parse_request(text: str) -> AskRequest:
    """Stored requests are parsed again on every read; they never change, and the model is
    frozen, so one parse per distinct text is enough (restart and hot reads alike)."""
    return AskRequest.model_validate_json(text)


def migrations() -> list[tuple[int, str]]:
    """Numbered SQL migrations shipped in `bridge/store/migrations/NNNN_name.sql`."""
    found = []
    for entry in resources.files("bridge.store.migrations").iterdir():
        if entry.name.endswith(".sql"):
            found.append((int(entry.name.split("_", 1)[0]), entry.read_text(encoding="utf-8")))
    return sorted(found)


def statements(sql: str) -> list[str]:
    lines = [ln for ln in sql.splitlines() if not ln.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def row_to_question(row: Row) -> QuestionRecord:
    (qid, agent, session, request, status, reason, result, a_surface, a_user, summary,
     created_at, expires_at, resolved_at) = tuple(row)
    return QuestionRecord(
        id=QuestionId(qid),
        agent=AgentName(agent),
        session=SessionKey(session),
        request=parse_request(request),
        status=status,
        reason=reason,
        result=AskResult.model_validate_json(result) if result else None,
        answered_by=AnsweredBy(SurfaceId(a_surface), UserRef(a_user)) if a_surface else None,
        summary=summary,
        created_at=int(created_at),
        expires_at=int(expires_at),
        resolved_at=int(resolved_at) if resolved_at is not None else None,
    )


def row_to_delivery(row: Row) -> DeliveryRecord:
    qid, surface, state, ref, error, finalized, tier, delivered_at, reminders = tuple(row)
    return DeliveryRecord(
        question_id=QuestionId(qid),
        surface=SurfaceId(surface),
        state=state,
        message_ref=MessageRef(ref) if ref is not None else None,
        error=error,
        finalized=bool(finalized),
        tier=int(tier),
        delivered_at=int(delivered_at) if delivered_at is not None else None,
        reminders=int(reminders),
    )


class SqlStore(AdapterStateQueries, ReachQueries, OutboxQueries):
    """Every `Store` method as SQL; subclasses provide `_tx()`, `_read()` and `_is_conflict()`."""

    shared = False
    """Whether other processes write to the same database (replicas)."""

    def _tx(self) -> AbstractAsyncContextManager[Executor]:
        """A write transaction (serialized against other writers)."""
        raise TypeError("SqlStore is abstract")

    def _read(self) -> AbstractAsyncContextManager[Executor]:
        """A connection for reads."""
        raise TypeError("SqlStore is abstract")

    def _is_conflict(self, exc: Exception) -> bool:
        raise TypeError("SqlStore is abstract")

    async def _lock_migrations(self, db: Executor) -> None:
        """Backends with several writers (replicas) take a lock here."""

    async def _notify(self, db: Executor, event: str, question_id: QuestionId) -> None:
        """Tell other processes sharing the database, on commit (no-op for a single process)."""

    async def listen(self, handler: ChangeHandler) -> None:
        """Call `handler(event, question_id)` for changes committed by other processes."""

    async def try_lead(self) -> bool:
        """A single process always leads."""
        return True

    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        async with self._read() as db:
            return await db.rows(sql, args)

    async def migrate(self) -> None:
        async with self._tx() as db:
            await self._lock_migrations(db)
            await db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY)")
            # Every migration not applied yet, not only those above the highest: branches that
            # land together may number theirs out of order.
            applied = {int(r[0]) for r in await db.rows("SELECT version FROM schema_version")}
            for version, sql in migrations():
                if version not in applied:
                    for statement in statements(sql):
                        await db.execute(statement)
                    await db.execute("INSERT INTO schema_version VALUES (?)", (version,))

    async def create_question(
        self, record: QuestionRecord, surfaces: list[SurfaceId], timers: Sequence[TimerRecord] = ()
    ) -> None:
        try:
            async with self._tx() as db:
                await db.execute(INSERT_QUESTION, question_args(record))
                await db.executemany(INSERT_DELIVERY, delivery_args(record, surfaces))
                if timers:
                    await db.executemany(INSERT_TIMER, timer_args(timers))
                await self._notify(db, "created", record.id)
        except Exception as exc:
            if self._is_conflict(exc):
                raise PendingConflict(record.session) from exc
            raise

    async def set_delivery(
        self,
        question_id: QuestionId,
        surface: SurfaceId,
        state: DeliveryState,
        message_ref: MessageRef | None = None,
        error: str | None = None,
    ) -> None:
        async with self._tx() as db:
            await db.execute(UPDATE_DELIVERY, update_delivery_args(
                question_id, surface, state, message_ref, error))
            await self._notify(db, "delivery", question_id)

    async def resolve(self, question_id: QuestionId, resolution: Resolution) -> bool:
        async with self._tx() as db:
            changed = await db.execute(RESOLVE_QUESTION, resolve_args(question_id, resolution))
            if changed == 1:
                await db.execute(DELETE_PARTIALS, (question_id,))
                await self._notify(db, "resolved", question_id)
            return changed == 1

    async def get_question(self, question_id: QuestionId) -> QuestionRecord | None:
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
        now = now_ms()
        async with self._tx() as db:
            return await db.execute(CLAIM_FINALIZATION,
                                    (now, question_id, surface, now - lease_ms)) == 1

    async def release_finalization_claims(self) -> int:
        async with self._tx() as db:
            return await db.execute(
                "UPDATE deliveries SET finalize_claimed_at = NULL "
                "WHERE finalized = 0 AND finalize_claimed_at IS NOT NULL")

    async def mark_finalized(self, question_id: QuestionId, surface: SurfaceId) -> bool:
        async with self._tx() as db:
            return await db.execute(MARK_FINALIZED, (now_ms(), question_id, surface)) == 1

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
            f"SELECT {_D_COLUMNS} FROM deliveries d JOIN questions q ON q.id = d.question_id "
            "WHERE q.status = 'pending' ORDER BY d.question_id, d.position")
        return [row_to_delivery(r) for r in rows]

    async def pending_on_surface(
        self, surface: SurfaceId, state: DeliveryState = "delivered", limit: int | None = None
    ) -> list[QuestionRecord]:
        rows = await self._rows(
            f"SELECT {_Q_COLUMNS} FROM questions q JOIN deliveries d ON d.question_id = q.id "
            "WHERE q.status = 'pending' AND d.surface = ? AND d.state = ? "
            "ORDER BY q.created_at, q.id" + (" LIMIT ?" if limit else ""),
            (surface, state, limit) if limit else (surface, state))
        return [row_to_question(r) for r in rows]

    async def find_delivery(
        self, surface: SurfaceId, message_ref: MessageRef
    ) -> DeliveryRecord | None:
        """The delivery whose prompt, or one of whose reminders, is `message_ref` on `surface`."""
        rows = await self._rows(
            f"SELECT {DELIVERY_COLUMNS} FROM deliveries WHERE surface = ? AND (message_ref = ? "
            "OR question_id IN (SELECT question_id FROM message_refs "
            "WHERE surface = ? AND message_ref = ?))",
            (surface, message_ref, surface, message_ref))
        return row_to_delivery(rows[0]) if rows else None

    async def unfinalized(self) -> list[DeliveryRecord]:
        rows = await self._rows(
            f"SELECT {_D_COLUMNS} FROM deliveries d JOIN questions q ON q.id = d.question_id "
            "WHERE q.status <> 'pending' AND d.state = 'delivered' AND d.finalized = 0")
        return [row_to_delivery(r) for r in rows]

    async def save_partial(self, question_id: QuestionId, answers: dict[str, list[str]]) -> None:
        stamp = now_ms()
        async with self._tx() as db:
            await db.executemany(
                "INSERT INTO partial_answers (question_id, question_key, answers, updated_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (question_id, question_key) "
                "DO UPDATE SET answers = excluded.answers, updated_at = excluded.updated_at",
                [(question_id, k, json.dumps(v), stamp) for k, v in answers.items()],
            )

    async def partial(self, question_id: QuestionId) -> dict[str, list[str]]:
        rows = await self._rows(
            "SELECT question_key, answers FROM partial_answers WHERE question_id = ?",
            (question_id,))
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

