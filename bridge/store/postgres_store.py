"""The scale-out store: PostgreSQL through asyncpg, same migrations and queries as SQLite."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from functools import lru_cache
from typing import Any

import asyncpg

from bridge.model.ids import QuestionId
from bridge.store.sql_store import ChangeHandler, SqlStore, opened
from bridge.store.writes import Row, Step

_MIGRATION_LOCK = 0x61736B62  # "askb": one replica migrates at a time
CHANNEL = "askbridge"
_LEADER_LOCK = 0x61736B6C  # "askl": held by the replica that keeps the long connections
_AUDIT_LOCK = 0x61736B61  # "aska": one audit append at a time, so the chain never forks


@lru_cache(maxsize=256)
def numbered(sql: str) -> str:
    """`?` placeholders → `$1, $2, …` (our SQL never has `?` inside string literals)."""
    counter = iter(range(1, 1000))
    return re.sub(r"\?", lambda _: f"${next(counter)}", sql)


class _PgExecutor:
    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        status: str = await self.conn.execute(numbered(sql), *args)
        last = status.rsplit(" ", 1)[-1]
        return int(last) if last.isdigit() else 0

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None:
        await self.conn.executemany(numbered(sql), [tuple(a) for a in args])

    async def rows(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        return [tuple(r) for r in await self.conn.fetch(numbered(sql), *args)]


class PostgresStore(SqlStore):
    """A connection pool; the database itself serializes what must be exactly once."""

    shared = True
    dialect = "postgres"
    row_lock = " FOR UPDATE SKIP LOCKED"
    approval_lock = " FOR UPDATE"

    def __init__(self, url: str, min_size: int = 1, max_size: int = 10) -> None:
        self.url = url
        self.min_size = min_size
        self.max_size = max_size
        self._pool: asyncpg.Pool | None = None
        self._listener: asyncpg.Connection | None = None
        self._leader: asyncpg.Connection | None = None
        self._leading = False

    @property
    def pool(self) -> asyncpg.Pool:
        return opened(self._pool)

    async def open(self) -> None:
        self._pool = await asyncpg.create_pool(self.url, min_size=self.min_size,
                                               max_size=self.max_size)
        await self.migrate()

    async def close(self) -> None:
        for conn in (self._listener, self._leader):
            if conn is not None:
                await conn.close()
        self._listener = self._leader = None
        self._leading = False
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[_PgExecutor]:
        async with self.pool.acquire() as conn, conn.transaction():
            yield _PgExecutor(conn)

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[_PgExecutor]:
        async with self.pool.acquire() as conn:
            yield _PgExecutor(conn)

    def _alone(self) -> AbstractAsyncContextManager[_PgExecutor]:
        """Autocommit: the statement is its own transaction, one round trip instead of three."""
        return self._read()

    async def _lock_migrations(self, db: Any) -> None:
        await db.execute("SELECT pg_advisory_xact_lock(?)", (_MIGRATION_LOCK,))

    async def _lock_audit(self, db: Any) -> None:
        await db.execute("SELECT pg_advisory_xact_lock(?)", (_AUDIT_LOCK,))

    def _notice(self, event: str, question_id: QuestionId) -> Step:
        return Step("SELECT pg_notify(?, ?)", (CHANNEL, f"{event}:{question_id}"))

    def _told(self, step: Step, notice: Step) -> Step:
        """The change and its NOTIFY in one autocommitted statement: the NOTIFY is sent once
        per changed row and only on commit, as from a transaction, in one round trip."""
        return Step(f"WITH changed AS ({step.sql} RETURNING 1) {notice.sql} FROM changed",
                    (*step.args, *notice.args))

    async def listen(self, handler: ChangeHandler) -> None:
        """LISTEN on a connection of its own; NOTIFY arrives once the writer commits."""

        def on_notify(_conn: Any, _pid: int, _channel: str, payload: str) -> None:
            event, _, question_id = payload.partition(":")
            handler(event, QuestionId(question_id))

        self._listener = await asyncpg.connect(self.url)
        await self._listener.add_listener(CHANNEL, on_notify)

    async def try_lead(self) -> bool:
        """Session-level advisory lock on a dedicated connection: freed when the holder dies."""
        try:
            if self._leader is None or self._leader.is_closed():
                self._leader = await asyncpg.connect(self.url, timeout=5)
                self._leading = False
            if self._leading:
                await self._leader.fetchval("SELECT 1", timeout=5)
                return True
            self._leading = bool(await self._leader.fetchval(
                "SELECT pg_try_advisory_lock($1)", _LEADER_LOCK, timeout=5))
        except (OSError, asyncpg.PostgresError, TimeoutError):
            self._leading = False
            if self._leader is not None:
                self._leader.terminate()
                self._leader = None
        return self._leading

    def _is_conflict(self, exc: Exception) -> bool:
        return isinstance(exc, asyncpg.UniqueViolationError)
