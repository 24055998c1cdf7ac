"""10,000 pending questions: ask throughput, RSS, restart until answerable, expiry precision."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import aiohttp

from bench.latency import Fake, ask_body
from bench.procs import AGENT_TOKEN, TOKENS, Proc, askbridge_proc, cpu_seconds, rss_mb
from bench.stats import Samples

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}


@dataclass
class ScaleResult:
    figures: dict[str, Any] = field(default_factory=dict)
    lateness: Samples = field(default_factory=lambda: Samples("expiry_lateness"))


async def pool(n: int, concurrency: int, job: Callable[[int], Awaitable[None]]) -> float:
    """Run `job(0..n-1)` with at most `concurrency` at once; seconds taken."""
    counter = itertools.count()
    began = time.monotonic()

    async def worker() -> None:
        for i in counter:
            if i >= n:
                return
            await job(i)

    await asyncio.gather(*(worker() for _ in range(min(concurrency, n))))
    return time.monotonic() - began


async def ask_many(http: aiohttp.ClientSession, proc: Proc, prefix: str, n: int,
                   concurrency: int, timeout: int) -> tuple[list[str], float]:
    """Non-blocking asks in sessions `<prefix><i>`; (question ids, seconds)."""
    ids = [""] * n

    async def one(i: int) -> None:
        tag = f"{prefix}{i}"
        async with http.post(f"{proc.url}/v1/sessions/{tag}/questions",
                             json=ask_body(tag, timeout), headers=AUTH) as response:
            body = await response.json()
            if response.status != 202:
                raise RuntimeError(f"ask {tag} got {response.status}: {body}")
            ids[i] = body["id"]

    return ids, await pool(n, concurrency, one)


async def wait_count(fake: Fake, method: str, at_least: int, timeout: float,
                     token: str = TOKENS["scale"]) -> float:
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        if await fake.count(token, method) >= at_least:
            return time.monotonic() - began
        await asyncio.sleep(0.05)
    raise RuntimeError(f"the fake saw fewer than {at_least} {method} calls in {timeout} s")


def _ms(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000


async def restart(http: aiohttp.ClientSession, fake: Fake, proc: Proc, ids: list[str],
                  sample: int) -> dict[str, float]:
    """SIGTERM, start again, then tap `sample` questions spread over all; time until answered."""
    stopped = await proc.stop()
    await proc.spawn()
    healthy = await proc.ready(http, "/healthz", 60)
    picks = sorted({round(k * (len(ids) - 1) / max(1, sample - 1)) for k in range(sample)})

    async def answer(i: int) -> None:
        await fake.tap(TOKENS["scale"], f"s{i}")
        async with http.get(f"{proc.url}/v1/questions/{ids[i]}/result",
                            params={"wait": "20"}, headers=AUTH) as response:
            body = await response.json()
        if body.get("status") != "answered":
            raise RuntimeError(f"question s{i} was not answered after the restart: {body}")

    await asyncio.gather(*(answer(i) for i in picks))
    return {"stop_s": round(stopped, 3), "healthy_s": round(healthy, 3),
            "answerable_s": round(time.monotonic() - proc.started_at, 3), "sampled": len(picks)}


async def expiry(http: aiohttp.ClientSession, proc: Proc, n: int, concurrency: int,
                 load: int, result: ScaleResult) -> dict[str, Any]:
    """`n` asks with the minimum 30 s timeout; while they expire, `load` more asks arrive."""
    ids, _ = await ask_many(http, proc, "e", n, concurrency, 30)
    first = time.monotonic()
    await asyncio.sleep(max(0.0, 29.0 - (time.monotonic() - first)))
    _, load_s = await ask_many(http, proc, "l", load, concurrency, 3600)
    await asyncio.sleep(max(0.0, 31.5 - (time.monotonic() - first)) + 2.0)
    missed = 0

    async def check(i: int) -> None:
        nonlocal missed
        async with http.get(f"{proc.url}/v1/questions/{ids[i]}", headers=AUTH) as response:
            record = await response.json()
        if record["status"] != "no_answer" or not record.get("resolvedAt"):
            missed += 1
            return
        result.lateness.add(_ms(record["resolvedAt"]) - _ms(record["expiresAt"]))

    await pool(n, concurrency, check)
    values = result.lateness.values
    return {"expiring": n, "concurrent_asks": load, "concurrent_asks_per_s": round(load / load_s, 1),
            "not_expired": missed, "lateness_median_ms": round(result.lateness.median, 1),
            "lateness_p99_ms": round(result.lateness.p99, 1),
            "lateness_max_ms": round(max(values), 1) if values else None,
            "within_1s": sum(1 for v in values if -1000 <= v <= 1000)}


async def run_scale(http: aiohttp.ClientSession, fake: Fake, tmp: Path, *, n: int,
                    concurrency: int, expiring: int, load: int, sample: int,
                    profile: Path | None = None) -> ScaleResult:
    result = ScaleResult()
    proc = askbridge_proc(tmp, fake.url, TOKENS["scale"], "scale", profile)
    await proc.spawn()
    try:
        result.figures["start_s"] = round(await proc.ready(http, "/healthz", 60), 3)
        result.figures["rss_idle_mb"] = round(rss_mb(proc.pid)[0], 1)
        cpu = cpu_seconds(proc.pid)
        ids, asked_s = await ask_many(http, proc, "s", n, concurrency, 3600)
        result.figures["asks"] = n
        result.figures["ask_s"] = round(asked_s, 3)
        result.figures["asks_per_s"] = round(n / asked_s, 1)
        delivered = await wait_count(fake, "sendMessage", n, 300)
        result.figures["delivered_per_s"] = round(n / (asked_s + delivered), 1)
        result.figures["server_cpu_ms_per_ask"] = round((cpu_seconds(proc.pid) - cpu) * 1000 / n, 3)
        current, peak = rss_mb(proc.pid)
        result.figures["rss_pending_mb"] = round(current, 1)
        result.figures["rss_peak_mb"] = round(peak, 1)
        result.figures["restart"] = await restart(http, fake, proc, ids, sample)
        result.figures["rss_after_restart_mb"] = round(rss_mb(proc.pid)[0], 1)
        if expiring:
            result.figures["expiry"] = await expiry(http, proc, expiring, concurrency, load,
                                                    result)
        result.figures["rss_end_mb"] = round(rss_mb(proc.pid)[0], 1)
    finally:
        await proc.stop()
    return result


async def ptb_flood(bot: Any, n: int, concurrency: int) -> dict[str, float]:
    """The throughput floor: bare python-telegram-bot send_message calls, `concurrency` at once."""
    cpu = time.process_time()

    async def one(i: int) -> None:
        await bot.send_message(777, f"Deploy\nWhere should I deploy? [b:f{i}]")

    took = await pool(n, concurrency, one)
    return {"sends": n, "sends_per_s": round(n / took, 1),
            "cpu_ms_per_send": round((time.process_time() - cpu) * 1000 / n, 3)}
