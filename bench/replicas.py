"""PostgreSQL replicas: asks/s, answer latency and CPU per ask with 1, 2 and 3 replicas, same
store and fake.

No target: it shows the shape for deployments (docs/deploy.md sizes a cluster from it). Asks are
spread round-robin over the replicas; a blocking ask waits on one replica while the leader
(whichever holds the lock) polls Telegram, so an answer often crosses replicas through
LISTEN/NOTIFY. CPU per ask: the replicas' own (from /proc) and PostgreSQL's, as the backend
processes serving the scratch database's connections used it (from /proc: the server has no
pg_stat_statements loaded; its shared background processes, the WAL writer and checkpointer,
also serve other databases and are not counted), from the first ask until every prompt is at
the fake.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from bench.latency import Fake, ask_body
from bench.pg import SERVER, scratch_db
from bench.procs import TOKENS, Proc, askbridge_proc, cpu_seconds
from bench.scale import AUTH, pool, wait_count
from bench.stats import Samples


async def _answer_round(http: aiohttp.ClientSession, fake: Fake, proc: Proc, tag: str) -> float:
    async def call() -> int:
        async with http.post(f"{proc.url}/v1/sessions/{tag}/ask", json=ask_body(tag),
                             headers=AUTH) as response:
            body = await response.json()
            done = time.monotonic_ns()
        if body.get("status") != "answered":
            raise RuntimeError(f"replica answered {response.status}: {body}")
        return done

    asking = asyncio.create_task(call())
    try:
        await fake.event(tag)
        queued = await fake.tap(TOKENS["replicas"], tag)
        done = await asyncio.wait_for(asking, 30)
    finally:
        asking.cancel()
    await fake.event(tag, "editMessageText")
    return (done - queued) / 1e6


async def backends(db: str) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend connected to `db` (by pid)."""
    admin = await asyncpg.connect(f"{SERVER}/postgres")
    try:
        pids = [r[0] for r in await admin.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1", db)]
    finally:
        await admin.close()
    out: dict[int, float] = {}
    for pid in pids:
        try:
            out[pid] = cpu_seconds(pid)
        except OSError:  # ended meanwhile
            pass
    return out


async def _measure(http: aiohttp.ClientSession, fake: Fake, procs: list[Proc], label: str,
                   n: int, rounds: int, concurrency: int, db: str) -> dict[str, Any]:
    latency = Samples(f"replicas_{label}")
    for i in range(rounds):
        latency.add(await _answer_round(http, fake, procs[i % len(procs)], f"{label}a{i}"))

    async def ask(i: int) -> None:
        proc = procs[i % len(procs)]
        async with http.post(f"{proc.url}/v1/sessions/{label}q{i}/questions",
                             json=ask_body(f"{label}q{i}", 3600), headers=AUTH) as response:
            if response.status != 202:
                raise RuntimeError(f"ask got {response.status}: {await response.text()}")

    sent_before = await fake.count(TOKENS["replicas"], "sendMessage")
    server_before, pg_before = sum(cpu_seconds(p.pid) for p in procs), await backends(db)
    took = await pool(n, concurrency, ask)
    await wait_count(fake, "sendMessage", sent_before + n, 300, TOKENS["replicas"])
    server = sum(cpu_seconds(p.pid) for p in procs) - server_before
    pg_after = await backends(db)
    pg = sum(t - pg_before.get(pid, 0.0) for pid, t in pg_after.items())
    return {"replicas": len(procs), "asks_per_s": round(n / took, 1), "answer": latency.summary(),
            "server_cpu_ms_per_ask": round(1000 * server / n, 3),
            "pg_cpu_ms_per_ask": round(1000 * pg / n, 3), "pg_backends": len(pg_after)}


async def run_replicas(http: aiohttp.ClientSession, fake: Fake, tmp: Path, *, n: int,
                       rounds: int, concurrency: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for count in (1, 2, 3):
        async with scratch_db(f"replicas{count}") as url:
            procs = [askbridge_proc(tmp, fake.url, TOKENS["replicas"], f"pg{count}r{k}",
                                    store_url=url) for k in range(count)]
            try:
                for proc in procs:
                    await proc.spawn()
                    await proc.ready(http, "/healthz", 60)
                out[f"r{count}"] = await _measure(http, fake, procs, f"r{count}", n, rounds,
                                                  concurrency, url.rsplit("/", 1)[1])
            finally:
                for proc in procs:
                    await proc.stop()
    return out
