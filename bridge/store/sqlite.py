"""The embedded store: SQLite in WAL mode through aiosqlite, one connection, serialized writes."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from bridge.store.sql import SqlStore, opened
from bridge.store.writes import Row


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

    Every statement is a hop to aiosqlite's thread: a lone statement runs in autocommit mode
    (one hop), a write of several runs between BEGIN IMMEDIATE and COMMIT.
    """

    dialect = "sqlite"

    def __init__(self, path: str) -> None:
        self.path = path
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()

    @property
    def db(self) -> aiosqlite.Connection:
        return opened(self._db)

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
    async def _alone(self) -> AsyncIterator[_SqliteExecutor]:
        # The lock still: on the one connection, a statement sent while another coroutine's
        # transaction is open would join (and roll back with) that transaction.
        async with self._lock:
            yield _SqliteExecutor(self.db)

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[_SqliteExecutor]:
        yield _SqliteExecutor(self.db)

    def _is_conflict(self, exc: Exception) -> bool:
        return isinstance(exc, sqlite3.IntegrityError) and "questions" in str(exc)
