"""The embedded store: SQLite in WAL mode through aiosqlite, one connection, serialized writes."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite
import structlog

from bridge.store.sql import SqlStore, opened
from bridge.store.writes import Row, Write

log = structlog.get_logger("askbridge.store")


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
    (one hop), a write of several runs between BEGIN IMMEDIATE and COMMIT. Lone statements do
    not wait for one another (aiosqlite's thread runs them back to back, in the order sent);
    a transaction waits until those already sent are done, and those sent while it is open
    wait for it, so none joins it by accident on the one connection. Checkpoints run on a
    second connection (see CHECKPOINT_EVERY).
    """

    dialect = "sqlite"
    CHECKPOINT_EVERY = 200
    """Writes between checkpoints. SQLite's own would run inside a commit every 1,000 WAL pages
    (~110 asks) and wait there for two fsyncs; askbridge turns that off and checkpoints from a
    connection of its own instead (its own aiosqlite thread), which writers do not wait for."""
    WAL_PAGES_MAX = 4_000
    """The WAL's size (16 MB of 4 KiB pages) past which writers wait for a checkpoint to end."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._db: aiosqlite.Connection | None = None
        self._checkpointer: aiosqlite.Connection | None = None
        self._writes = 0
        self._checkpoint: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        """Held by a transaction from before its BEGIN until after its COMMIT."""
        self._lone = 0
        """Lone statements sent and not yet answered."""
        self._quiet = asyncio.Event()
        self._quiet.set()

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
        if self.path != ":memory:":
            for pragma in ("wal_autocheckpoint=0", f"journal_size_limit={self.WAL_PAGES_MAX * 4096}"):
                await self.db.execute(f"PRAGMA {pragma}")
            self._checkpointer = await aiosqlite.connect(self.path, isolation_level=None)
            await self._checkpointer.execute("PRAGMA busy_timeout=5000")

    async def close(self) -> None:
        if self._checkpoint is not None:
            await asyncio.gather(self._checkpoint, return_exceptions=True)
            self._checkpoint = None
        if self._checkpointer is not None:  # leave the database whole in its file
            try:
                await self._checkpointer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:  # the WAL stays; the next open reads it
                log.warning("sqlite_checkpoint_failed", error=str(exc))
            await self._checkpointer.close()
            self._checkpointer = None
        if self._db is not None:
            await self._db.close()
            self._db = None

    async def _write(self, write: Write) -> int:
        try:
            return await super()._write(write)
        finally:
            self._writes += 1
            if self._writes % self.CHECKPOINT_EVERY == 0:
                self._checkpoint_soon()

    def _checkpoint_soon(self) -> None:
        if self._checkpointer is None or (self._checkpoint and not self._checkpoint.done()):
            return  # one at a time: the next is due CHECKPOINT_EVERY writes after this one
        self._checkpoint = asyncio.create_task(self._run_checkpoint(self._checkpointer))

    async def _run_checkpoint(self, db: aiosqlite.Connection) -> None:
        """Copy the WAL into the database. PASSIVE never blocks a writer or a reader, but the
        WAL starts again from its beginning only after a checkpoint that copied all of it, which
        writes arriving meanwhile prevent: past WAL_PAGES_MAX a RESTART checkpoint copies the
        rest while writers wait (briefly: the PASSIVE one did the bulk)."""
        try:
            [(_, pages, _)] = await db.execute_fetchall("PRAGMA wal_checkpoint(PASSIVE)")
            if pages > self.WAL_PAGES_MAX:
                await db.execute("PRAGMA wal_checkpoint(RESTART)")
        except sqlite3.Error as exc:  # busy or failing: the next checkpoint tries again
            log.warning("sqlite_checkpoint_failed", error=str(exc))

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[_SqliteExecutor]:
        async with self._lock:
            while self._lone:
                await self._quiet.wait()
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                yield _SqliteExecutor(self.db)
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise
            await self.db.execute("COMMIT")

    @asynccontextmanager
    async def _alone(self) -> AsyncIterator[_SqliteExecutor]:
        if self._lock.locked():  # a transaction is open or about to be: after it
            async with self._lock:
                pass
        self._lone += 1  # no await since the check: a transaction now waits for this one
        self._quiet.clear()
        try:
            yield _SqliteExecutor(self.db)
        finally:
            self._lone -= 1
            if not self._lone:
                self._quiet.set()

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[_SqliteExecutor]:
        yield _SqliteExecutor(self.db)

    def _is_conflict(self, exc: Exception) -> bool:
        return isinstance(exc, sqlite3.IntegrityError) and "questions" in str(exc)
