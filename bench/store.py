"""The store alone: committed asks/s of SqliteStore against bare aiosqlite single-row commits.

Both on the same file system, same pragmas (WAL, synchronous=NORMAL), one connection, one commit
per ask, sequential (what one event loop can push) and with 16 concurrent writers. Also every
hot write of a question's life (ask, delivered, resolve, claim and mark the finalizing edit).
"""

from __future__ import annotations

from pathlib import Path

import aiosqlite

from bench.latency import ask_body
from bench.scale import pool
from bridge.core.broker import new_question_id
from bridge.model.contract import AskRequest, AskResult
from bridge.model.ids import AgentName, MessageRef, SessionKey, SurfaceId, UserRef
from bridge.model.validation import parse_ask_request
from bridge.store.protocol import Store
from bridge.store.records import AnsweredBy, QuestionRecord, Resolution, now_ms
from bridge.store.sqlite_store import SqliteStore

PRAGMAS = ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=5000")


def ask_record(request: AskRequest, i: int) -> QuestionRecord:
    created = now_ms()
    return QuestionRecord(id=new_question_id(), agent=AgentName("bench"),
                          session=SessionKey(f"s{i}"), request=request, status="pending",
                          created_at=created, expires_at=created + 900_000)


async def askbridge_store(path: Path, n: int, concurrency: int) -> float:
    return await asks_per_second(SqliteStore(str(path)), n, concurrency)


async def asks_per_second(store: Store, n: int, concurrency: int) -> float:
    """`create_question` (question row + delivery row, one commit) per second on `store`."""
    await store.open()
    request = parse_ask_request(ask_body("store"))
    surfaces = [SurfaceId("telegram:777")]

    async def ask(i: int) -> None:
        await store.create_question(ask_record(request, i), surfaces)

    try:
        return n / await pool(n, concurrency, ask)
    finally:
        await store.close()


async def lifecycles_per_second(store: Store, n: int, concurrency: int) -> float:
    """Questions per second through all five hot writes, each its own commit."""
    await store.open()
    request = parse_ask_request(ask_body("store"))
    surface = SurfaceId("telegram:777")
    result = AskResult.answered({"q1": ["yes"]})

    async def life(i: int) -> None:
        record = ask_record(request, i)
        await store.create_question(record, [surface])
        await store.set_delivery(record.id, surface, "delivered", MessageRef(f"777:{i}"))
        by = AnsweredBy(surface, UserRef("u1"))
        await store.resolve(record.id, Resolution(result, "yes", now_ms(), by))
        await store.claim_finalization(record.id, surface, 30_000)
        await store.mark_finalized(record.id, surface)

    try:
        return n / await pool(n, concurrency, life)
    finally:
        await store.close()


async def bare_aiosqlite(path: Path, n: int, concurrency: int) -> float:
    """One row (an id and the same request JSON) per commit, autocommit mode."""
    db = await aiosqlite.connect(str(path), isolation_level=None)
    for pragma in PRAGMAS:
        await db.execute(f"PRAGMA {pragma}")
    await db.execute("CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, body TEXT NOT NULL)")
    body = parse_ask_request(ask_body("store")).model_dump_json(by_alias=True)

    async def insert(i: int) -> None:
        await db.execute("INSERT INTO t VALUES (?, ?)", (new_question_id(), body))

    try:
        return n / await pool(n, concurrency, insert)
    finally:
        await db.close()


async def run_store(tmp: Path, n: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for concurrency in (1, 16):
        for name, fn in (("askbridge", askbridge_store), ("aiosqlite", bare_aiosqlite)):
            path = tmp / f"store-{name}-{concurrency}.db"
            out[f"{name}_c{concurrency}_per_s"] = round(await fn(path, n, concurrency), 1)
        out[f"ratio_c{concurrency}"] = round(
            out[f"askbridge_c{concurrency}_per_s"] / out[f"aiosqlite_c{concurrency}_per_s"], 3)
        store = SqliteStore(str(tmp / f"store-lifecycle-{concurrency}.db"))
        out[f"lifecycle_c{concurrency}_per_s"] = round(
            await lifecycles_per_second(store, n, concurrency), 1)
    return out
