"""The embedded store: SQLite in WAL mode through aiosqlite, one connection, serialized writes."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bridge.ids import MessageRef, QuestionId, SurfaceId
from bridge.store.records import (
    DeliveryState,
    PendingConflict,
    QuestionRecord,
    Resolution,
    TimerRecord,
    now_ms,
)
from bridge.store.sql import (
    CLAIM_FINALIZATION,
    DELETE_PARTIALS,
    INSERT_DELIVERY,
    INSERT_QUESTION,
    INSERT_TIMER,
    MARK_FINALIZED,
    RESOLVE_QUESTION,
    UPDATE_DELIVERY,
    Row,
    SqlStore,
    delivery_args,
    question_args,
    resolve_args,
    timer_args,
    update_delivery_args,
)

T = TypeVar("T")


class _SqliteExecutor:
    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        cursor = await self.db.execute(sql, tuple(args))
        return cursor.rowcount

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None:
        await self.db.executemany(sql, [tuple(a) for a in args])

    async def rows(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        return list(await self.db.execute_fetchall(sql, tuple(args)))  # one thread hop, not two


class SqliteStore(SqlStore):
    """WAL keeps readers off the writer's back; an asyncio lock keeps transactions whole.

    The hot writes (ask, delivery, resolution, finalization) run as one function on aiosqlite's
    thread: BEGIN, the statements and COMMIT in a single hop instead of one hop each. The SQL is
    sql.py's; only the driving differs.
    """

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
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON",
                       "busy_timeout=5000"):
            await self.db.execute(f"PRAGMA {pragma}")
        await self.migrate()

    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()
            self._db = None

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[_SqliteExecutor]:
        async with self._lock:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                yield _SqliteExecutor(self.db)
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise
            await self.db.execute("COMMIT")

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[_SqliteExecutor]:
        yield _SqliteExecutor(self.db)

    async def _in_thread(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` as one transaction on aiosqlite's thread (its `_execute` is how aiosqlite
        runs its own helpers, e.g. execute_fetchall; there is no public name for it)."""
        db = self.db

        def transaction() -> T:
            conn: sqlite3.Connection = db._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                out = work(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return out

        async with self._lock:
            result: T = await db._execute(transaction)  # type: ignore[no-untyped-call]
            return result

    async def create_question(
        self, record: QuestionRecord, surfaces: list[SurfaceId], timers: Sequence[TimerRecord] = ()
    ) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute(INSERT_QUESTION, question_args(record))
            conn.executemany(INSERT_DELIVERY, delivery_args(record, surfaces))
            if timers:
                conn.executemany(INSERT_TIMER, timer_args(timers))

        try:
            await self._in_thread(work)
        except sqlite3.IntegrityError as exc:
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
        args = update_delivery_args(question_id, surface, state, message_ref, error)
        await self._in_thread(lambda conn: conn.execute(UPDATE_DELIVERY, args))

    async def resolve(self, question_id: QuestionId, resolution: Resolution) -> bool:
        args = resolve_args(question_id, resolution)

        def work(conn: sqlite3.Connection) -> bool:
            if conn.execute(RESOLVE_QUESTION, args).rowcount != 1:
                return False
            conn.execute(DELETE_PARTIALS, (question_id,))
            return True

        return await self._in_thread(work)

    async def claim_finalization(
        self, question_id: QuestionId, surface: SurfaceId, lease_ms: int
    ) -> bool:
        now = now_ms()
        args = (now, question_id, surface, now - lease_ms)
        return await self._in_thread(
            lambda conn: conn.execute(CLAIM_FINALIZATION, args).rowcount == 1)

    async def mark_finalized(self, question_id: QuestionId, surface: SurfaceId) -> bool:
        args = (now_ms(), question_id, surface)
        return await self._in_thread(lambda conn: conn.execute(MARK_FINALIZED, args).rowcount == 1)

    def _is_conflict(self, exc: Exception) -> bool:
        return isinstance(exc, sqlite3.IntegrityError) and "questions" in str(exc)
