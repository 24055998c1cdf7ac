"""The embedded store: SQLite in WAL mode through aiosqlite, with numbered migrations."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any, cast

import aiosqlite

from bridge.contract import AskRequest, AskResult
from bridge.store.records import (
    AnsweredBy,
    DeliveryRecord,
    DeliveryState,
    PendingConflict,
    QuestionRecord,
    Resolution,
    SessionInfo,
    now_ms,
)
from bridge.types import AgentName, MessageRef, QuestionId, SessionKey, SurfaceId, UserRef

_QUESTION_COLUMNS = (
    "id, agent, session, request, status, reason, result, answered_surface, answered_user, "
    "summary, created_at, expires_at, resolved_at"
)


def migrations() -> list[tuple[int, str]]:
    """Numbered SQL migrations shipped in `bridge/store/migrations/NNNN_name.sql`."""
    found = []
    for entry in resources.files("bridge.store.migrations").iterdir():
        if entry.name.endswith(".sql"):
            found.append((int(entry.name.split("_", 1)[0]), entry.read_text(encoding="utf-8")))
    return sorted(found)


def row_to_question(row: Iterable[Any]) -> QuestionRecord:
    (qid, agent, session, request, status, reason, result, a_surface, a_user, summary,
     created_at, expires_at, resolved_at) = tuple(row)
    return QuestionRecord(
        id=QuestionId(qid),
        agent=AgentName(agent),
        session=SessionKey(session),
        request=AskRequest.model_validate_json(request),
        status=status,
        reason=reason,
        result=AskResult.model_validate_json(result) if result else None,
        answered_by=AnsweredBy(SurfaceId(a_surface), UserRef(a_user)) if a_surface else None,
        summary=summary,
        created_at=int(created_at),
        expires_at=int(expires_at),
        resolved_at=int(resolved_at) if resolved_at is not None else None,
    )


def row_to_delivery(row: Iterable[Any]) -> DeliveryRecord:
    qid, surface, state, ref, error, finalized = tuple(row)
    return DeliveryRecord(
        question_id=QuestionId(qid),
        surface=SurfaceId(surface),
        state=state,
        message_ref=MessageRef(ref) if ref is not None else None,
        error=error,
        finalized=bool(finalized),
    )


def request_json(request: AskRequest) -> str:
    return request.model_dump_json(by_alias=True)


class SqliteStore:
    """One connection, writes serialized by a lock; WAL keeps readers off the writer's back."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("the store is not open")
        return self._db

    async def open(self) -> None:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = await aiosqlite.connect(self.path, isolation_level=None)
        await self.db.execute("PRAGMA journal_mode=WAL")
        await self.db.execute("PRAGMA synchronous=NORMAL")
        await self.db.execute("PRAGMA foreign_keys=ON")
        await self.db.execute("PRAGMA busy_timeout=5000")
        await self._migrate()

    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()
            self._db = None

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise
            await self.db.execute("COMMIT")

    async def _migrate(self) -> None:
        async with self._tx() as db:
            await db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY)"
            )
            cur = await db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version")
            row = await cur.fetchone()
            current = int(row[0]) if row else 0
            for version, sql in migrations():
                if version > current:
                    for statement in _statements(sql):
                        await db.execute(statement)
                    await db.execute("INSERT INTO schema_version VALUES (?)", (version,))

    async def create_question(self, record: QuestionRecord, surfaces: list[SurfaceId]) -> None:
        try:
            async with self._tx() as db:
                await db.execute(
                    f"INSERT INTO questions ({_QUESTION_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, 'pending', NULL, NULL, NULL, NULL, NULL, ?, ?, NULL)",
                    (record.id, record.agent, record.session, request_json(record.request),
                     record.created_at, record.expires_at),
                )
                await db.executemany(
                    "INSERT INTO deliveries (question_id, surface, state, updated_at) "
                    "VALUES (?, ?, 'sending', ?)",
                    [(record.id, s, record.created_at) for s in surfaces],
                )
        except sqlite3.IntegrityError as exc:
            if "questions" in str(exc) or "UNIQUE" in str(exc):
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
            await db.execute(
                "UPDATE deliveries SET state = ?, message_ref = ?, error = ?, updated_at = ? "
                "WHERE question_id = ? AND surface = ?",
                (state, message_ref, error, now_ms(), question_id, surface),
            )

    async def resolve(self, question_id: QuestionId, resolution: Resolution) -> bool:
        result = resolution.result
        by = resolution.answered_by
        async with self._tx() as db:
            cur = await db.execute(
                "UPDATE questions SET status = ?, reason = ?, result = ?, answered_surface = ?, "
                "answered_user = ?, summary = ?, resolved_at = ? "
                "WHERE id = ? AND status = 'pending'",
                (result.status, result.reason, json.dumps(result.to_json()),
                 by.surface if by else None, by.user if by else None, resolution.summary,
                 resolution.resolved_at, question_id),
            )
            won = cur.rowcount == 1
            if won:
                await db.execute("DELETE FROM partial_answers WHERE question_id = ?", (question_id,))
            return won

    async def get_question(self, question_id: QuestionId) -> QuestionRecord | None:
        cur = await self.db.execute(
            f"SELECT {_QUESTION_COLUMNS} FROM questions WHERE id = ?", (question_id,)
        )
        row = await cur.fetchone()
        return row_to_question(row) if row else None

    async def deliveries(self, question_id: QuestionId) -> list[DeliveryRecord]:
        cur = await self.db.execute(
            "SELECT question_id, surface, state, message_ref, error, finalized FROM deliveries "
            "WHERE question_id = ? ORDER BY rowid",
            (question_id,),
        )
        return [row_to_delivery(r) for r in await cur.fetchall()]

    async def mark_finalized(self, question_id: QuestionId, surface: SurfaceId) -> bool:
        async with self._tx() as db:
            cur = await db.execute(
                "UPDATE deliveries SET finalized = 1, updated_at = ? "
                "WHERE question_id = ? AND surface = ? AND finalized = 0",
                (now_ms(), question_id, surface),
            )
            return cur.rowcount == 1

    async def pending_questions(self) -> list[QuestionRecord]:
        cur = await self.db.execute(
            f"SELECT {_QUESTION_COLUMNS} FROM questions WHERE status = 'pending' "
            "ORDER BY expires_at"
        )
        return [row_to_question(r) for r in await cur.fetchall()]

    async def pending_on_surface(self, surface: SurfaceId) -> list[QuestionRecord]:
        cols = ", ".join(f"q.{c.strip()}" for c in _QUESTION_COLUMNS.split(","))
        cur = await self.db.execute(
            f"SELECT {cols} FROM questions q JOIN deliveries d ON d.question_id = q.id "
            "WHERE q.status = 'pending' AND d.surface = ? AND d.state = 'delivered' "
            "ORDER BY q.created_at",
            (surface,),
        )
        return [row_to_question(r) for r in await cur.fetchall()]

    async def find_delivery(
        self, surface: SurfaceId, message_ref: MessageRef
    ) -> DeliveryRecord | None:
        cur = await self.db.execute(
            "SELECT question_id, surface, state, message_ref, error, finalized FROM deliveries "
            "WHERE surface = ? AND message_ref = ?",
            (surface, message_ref),
        )
        row = await cur.fetchone()
        return row_to_delivery(row) if row else None

    async def unfinalized(self) -> list[DeliveryRecord]:
        cur = await self.db.execute(
            "SELECT d.question_id, d.surface, d.state, d.message_ref, d.error, d.finalized "
            "FROM deliveries d JOIN questions q ON q.id = d.question_id "
            "WHERE q.status <> 'pending' AND d.state = 'delivered' AND d.finalized = 0"
        )
        return [row_to_delivery(r) for r in await cur.fetchall()]

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
        cur = await self.db.execute(
            "SELECT question_key, answers FROM partial_answers WHERE question_id = ?",
            (question_id,),
        )
        return {k: cast(list[str], json.loads(v)) for k, v in await cur.fetchall()}

    async def timeline(
        self, agent: AgentName, session: SessionKey, limit: int = 100
    ) -> list[QuestionRecord]:
        cur = await self.db.execute(
            f"SELECT {_QUESTION_COLUMNS} FROM questions WHERE agent = ? AND session = ? "
            "ORDER BY created_at DESC, rowid DESC LIMIT ?",
            (agent, session, limit),
        )
        return [row_to_question(r) for r in await cur.fetchall()]

    async def sessions(self, agent: AgentName) -> list[SessionInfo]:
        cur = await self.db.execute(
            "SELECT session, SUM(CASE WHEN status = 'pending' THEN 1 ELSE 0 END), "
            "MAX(created_at) FROM questions WHERE agent = ? GROUP BY session "
            "ORDER BY MAX(created_at) DESC",
            (agent,),
        )
        return [
            SessionInfo(SessionKey(s), int(p), int(t)) for s, p, t in await cur.fetchall()
        ]


def _statements(sql: str) -> list[str]:
    lines = [ln for ln in sql.splitlines() if not ln.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
