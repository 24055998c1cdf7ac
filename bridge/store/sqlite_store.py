"""The embedded store: SQLite in WAL mode through aiosqlite, one connection, serialized writes."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite
import structlog

from bridge.store.files import private_database, private_dir, tighten
from bridge.store.sql_store import SqlStore, opened
from bridge.store.writes import Row, Write

log = structlog.get_logger("askbridge.store")


DELETE_ENDED = (
    "DELETE FROM questions WHERE id IN (SELECT id FROM questions WHERE status <> 'pending' "
    "AND resolved_at < ? ORDER BY resolved_at LIMIT ?)")
"""Retention's batch (`delete_ended`): the oldest ended questions, the trigger taking along
every row keyed to them (`KEYED_TO_A_QUESTION`)."""


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
    """One connection reads and writes, in WAL mode; an asyncio lock keeps transactions whole.

    Every statement is a hop to aiosqlite's thread: a lone statement runs in autocommit mode
    (one hop), a write of several runs between BEGIN IMMEDIATE and COMMIT. Every read is a lone
    statement too: on the one connection, a read sent while a transaction is open would see its
    rows before they are committed, or rows it then rolls back. Lone statements do
    not wait for one another (aiosqlite's thread runs them back to back, in the order sent);
    a transaction waits until those already sent are done, and those sent while it is open
    wait for it, so none joins it by accident on the one connection. They wait on an event,
    all woken at once when the transaction ends, not in the lock's line: there each would be
    let through one event-loop turn after the one before it, and under load thousands of them
    (an ask's commit among them) queued behind one another for seconds.

    Checkpoints (copying the WAL back into the database file) run beside the writes, on a
    second connection with its own thread: SQLite's automatic one would run inside the commit
    that crosses 1,000 WAL pages (about 100 asks) and make it, and every write queued behind
    it, wait for two fsyncs.
    """

    dialect = "sqlite"
    retention_batch = 10
    """An ask sent during a batch waits for it on the one connection: ten in one statement
    hold it a quarter as long as fifty in a transaction did (bench/README.md, round 19), and
    100,000 still go in about two minutes."""
    CHECKPOINT_EVERY = 100
    """Writes between two checkpoints on the side connection."""
    WAL_FRAMES_MAX = 4_000
    """WAL frames (4 KiB pages) past which the writer catches up. While writes keep arriving a
    side checkpoint never copies the whole WAL, and the WAL starts over from its beginning only
    after one did: past this, the writer's own connection copies what is left (little: the side
    one did the bulk), between two writes, so the WAL stays about this size (16 MB)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._db: aiosqlite.Connection | None = None
        self._side: aiosqlite.Connection | None = None
        """The checkpointing connection (none in memory)."""
        self._writes = 0
        self._checkpoint: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        """Held by a transaction from before its BEGIN until after its COMMIT."""
        self._between = asyncio.Event()
        """Set while no transaction holds the lock: lone statements may be sent."""
        self._between.set()
        self._lone = 0
        """Lone statements sent and not yet answered."""
        self._quiet = asyncio.Event()
        self._quiet.set()

    @property
    def db(self) -> aiosqlite.Connection:
        return opened(self._db)

    async def open(self) -> None:
        if self.path != ":memory:":
            private_dir(Path(self.path).parent)
            private_database(Path(self.path))
        self._db = await aiosqlite.connect(self.path, isolation_level=None)
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON",
                       "busy_timeout=5000"):
            await self.db.execute(f"PRAGMA {pragma}")
        await self.migrate()
        if self.path != ":memory:":
            await self.db.execute("PRAGMA wal_autocheckpoint=0")
            self._side = await aiosqlite.connect(self.path, isolation_level=None)
            await self._side.execute("PRAGMA busy_timeout=5000")
            tighten(Path(self.path))  # a -wal or -shm an older version left open

    async def close(self) -> None:
        side, self._side = self._side, None  # from here on no write starts a checkpoint
        if self._checkpoint is not None:
            await asyncio.gather(self._checkpoint, return_exceptions=True)
            self._checkpoint = None
        if side is not None:
            await side.close()
        if self._db is not None:  # the last connection: closing it folds the WAL in
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
        if self._side is None or (self._checkpoint is not None and not self._checkpoint.done()):
            return  # one at a time; the next is due CHECKPOINT_EVERY writes after this one
        self._checkpoint = asyncio.create_task(self._run_checkpoint(self._side))

    async def _run_checkpoint(self, side: aiosqlite.Connection) -> None:
        """A PASSIVE checkpoint waits for nobody and nobody waits for it; if the WAL it saw is
        past WAL_FRAMES_MAX, the writer's connection finishes the job (why: see that)."""
        try:
            [(_, frames, _)] = await side.execute_fetchall("PRAGMA wal_checkpoint(PASSIVE)")
            if frames > self.WAL_FRAMES_MAX:
                async with self._alone() as db:
                    await db.rows("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as exc:  # busy or failing: the next one tries again
            log.warning("sqlite_checkpoint_failed", error=str(exc))

    @property
    def lone_in_flight(self) -> int:
        """Lone statements sent to the connection and not yet answered: what a transaction
        waits for before its BEGIN, and what one ending lets go all in the same loop turn."""
        return self._lone

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[_SqliteExecutor]:
        async with self._lock:
            self._between.clear()
            try:
                while self._lone:
                    await self._quiet.wait()
                await self.db.execute("BEGIN IMMEDIATE")
                try:
                    yield _SqliteExecutor(self.db)
                except BaseException:
                    await self.db.execute("ROLLBACK")
                    raise
                await self.db.execute("COMMIT")
            finally:  # lone statements waiting go first; a transaction waiting for the lock next
                self._between.set()

    @asynccontextmanager
    async def _alone(self) -> AsyncIterator[_SqliteExecutor]:
        while not self._between.is_set():  # a transaction is open or about to be: after it
            await self._between.wait()
        self._lone += 1  # no await since the check: a transaction now waits for this one
        self._quiet.clear()
        try:
            yield _SqliteExecutor(self.db)
        finally:
            self._lone -= 1
            if not self._lone:
                self._quiet.set()

    def _read(self) -> AbstractAsyncContextManager[_SqliteExecutor]:
        return self._alone()

    def _is_conflict(self, exc: Exception) -> bool:
        return isinstance(exc, sqlite3.IntegrityError) and "questions" in str(exc)

    async def delete_ended(self, before: int, limit: int) -> int:
        """One statement: migration 0012's trigger takes each question's rows along, so an ask
        sent meanwhile waits for one trip to the database thread, not a transaction's eight.
        (One process writes this file: no other purge can claim the same rows.)"""
        async with self._alone() as db:
            return await db.execute(DELETE_ENDED, (before, limit))
