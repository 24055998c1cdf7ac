"""PostgreSQL replicas: asks/s and answer latency with 3 replicas against 1, same store and fake.

No target: it shows the shape for deployments. Asks are spread round-robin over the replicas;
a blocking ask waits on one replica while the leader (whichever holds the lock) polls Telegram,
so an answer often crosses replicas through LISTEN/NOTIFY.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import aiohttp

from bench.latency import Fake, ask_body
from bench.pg import scratch_db
from bench.procs import TOKENS, Proc, askbridge_proc
from bench.scale import AUTH, pool
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


async def _measure(http: aiohttp.ClientSession, fake: Fake, procs: list[Proc], label: str,
                   n: int, rounds: int, concurrency: int) -> dict[str, Any]:
    latency = Samples(f"replicas_{label}")
    for i in range(rounds):
        latency.add(await _answer_round(http, fake, procs[i % len(procs)], f"{label}a{i}"))

    async def ask(i: int) -> None:
        proc = procs[i % len(procs)]
        async with http.post(f"{proc.url}/v1/sessions/{label}q{i}/questions",
                             json=ask_body(f"{label}q{i}", 3600), headers=AUTH) as response:
            if response.status != 202:
                raise RuntimeError(f"ask got {response.status}: {await response.text()}")

    took = await pool(n, concurrency, ask)
    return {"replicas": len(procs), "asks_per_s": round(n / took, 1), "answer": latency.summary()}


async def run_replicas(http: aiohttp.ClientSession, fake: Fake, tmp: Path, *, n: int,
                       rounds: int, concurrency: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for count in (1, 3):
        async with scratch_db(f"replicas{count}") as url:
            procs = [askbridge_proc(tmp, fake.url, TOKENS["replicas"], f"pg{count}r{k}",
                                    store_url=url) for k in range(count)]
            try:
                for proc in procs:
                    await proc.spawn()
                    await proc.ready(http, "/healthz", 60)
                out[f"r{count}"] = await _measure(http, fake, procs, f"r{count}", n, rounds,
                                                  concurrency)
            finally:
                for proc in procs:
                    await proc.stop()
    return out
