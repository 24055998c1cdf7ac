"""PostgreSQL for benchmarks: a scratch database, the store against bare asyncpg commits."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg

from bench.latency import ask_body
from bench.scale import pool
from bench.store import asks_per_second, lifecycles_per_second
from bridge.core.broker import new_question_id
from bridge.model.validation import parse_ask_request
from bridge.store.postgres_store import PostgresStore

SERVER = os.environ.get("BENCH_PG", "postgresql://postgres@127.0.0.1:5432")


@asynccontextmanager
async def scratch_db(name: str) -> AsyncIterator[str]:
    """A fresh database `bench_<name>_<pid>`, dropped afterwards; yields its URL."""
    db = f"bench_{name}_{os.getpid()}"
    admin = await asyncpg.connect(f"{SERVER}/postgres")
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{db}"')
        await admin.execute(f'CREATE DATABASE "{db}"')
        yield f"{SERVER}/{db}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        await admin.close()


async def askbridge_pg(url: str, n: int, concurrency: int) -> float:
    return await asks_per_second(PostgresStore(url, max_size=max(1, concurrency)), n, concurrency)


async def bare_asyncpg(url: str, n: int, concurrency: int) -> float:
    """One row (an id and the same request JSON) per autocommitted INSERT, from a pool."""
    db = await asyncpg.create_pool(url, min_size=1, max_size=max(1, concurrency))
    await db.execute("CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, body TEXT NOT NULL)")
    body = parse_ask_request(ask_body("store")).model_dump_json(by_alias=True)

    async def insert(i: int) -> None:
        await db.execute("INSERT INTO t VALUES ($1, $2)", new_question_id(), body)

    try:
        return n / await pool(n, concurrency, insert)
    finally:
        await db.close()


async def run_store_pg(n: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for concurrency in (1, 16):
        for name, fn in (("askbridge", askbridge_pg), ("asyncpg", bare_asyncpg)):
            async with scratch_db(f"store_{name}") as url:
                out[f"{name}_c{concurrency}_per_s"] = round(await fn(url, n, concurrency), 1)
        out[f"ratio_c{concurrency}"] = round(
            out[f"askbridge_c{concurrency}_per_s"] / out[f"asyncpg_c{concurrency}_per_s"], 3)
        async with scratch_db("store_lifecycle") as url:
            store = PostgresStore(url, max_size=max(1, concurrency))
            out[f"lifecycle_c{concurrency}_per_s"] = round(
                await lifecycles_per_second(store, n, concurrency), 1)
    return out
