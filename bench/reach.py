"""Reach at scale: many pending questions, each with two reminders and one escalation tier,
fired while asks keep arriving; how late each timer fired, RSS and CPU."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Any

import aiohttp

from bench.latency import Fake
from bench.procs import CHAT_ID, TOKENS, askbridge_proc, cpu_seconds, rss_mb
from bench.scale import ask_many
from bench.stats import Samples

REMIND = (20, 40)
ESCALATE = 30
REACH_TOML = f"""remind_after = [{REMIND[0]}, {REMIND[1]}]

[[agents.escalation]]
after = {ESCALATE}
surfaces = ["telegram:{CHAT_ID + 1}"]
"""


def _timer_rows(db: Path) -> list[tuple[int, int | None, int | None]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return list(conn.execute("SELECT due_at, claimed_at, sent_at FROM timers"))


async def _all_sent(db: Path, expected: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = await asyncio.to_thread(_timer_rows, db)
        if len(rows) >= expected and all(sent is not None for _, _, sent in rows):
            return
        await asyncio.sleep(0.5)
    raise RuntimeError(f"not every one of {expected} timers was sent within {timeout} s")


async def run_reach(http: aiohttp.ClientSession, fake: Fake, tmp: Path, *, n: int,
                    concurrency: int, profile: Path | None = None) -> dict[str, Any]:
    proc = askbridge_proc(tmp, fake.url, TOKENS["scale"], "reach", profile,
                          agent_extra=REACH_TOML)
    await proc.spawn()
    try:
        await proc.ready(http, "/healthz", 60)
        cpu = cpu_seconds(proc.pid)
        _, asked_s = await ask_many(http, proc, "r", n, concurrency, 3600)
        await _all_sent(tmp / "reach" / "askbridge.db", n * 3, asked_s + max(REMIND) + 120)
        cpu_used = cpu_seconds(proc.pid) - cpu
        current, peak = rss_mb(proc.pid)
    finally:
        await proc.stop()
    fired, sent = Samples("timer_fired_late"), Samples("timer_sent_late")
    for due, claimed, done in _timer_rows(tmp / "reach" / "askbridge.db"):
        fired.add(float((claimed or due) - due))
        sent.add(float((done or due) - due))
    return {"questions": n, "timers": len(fired.values), "ask_s": round(asked_s, 1),
            "fired_within_1s": sum(1 for v in fired.values if v <= 1000),
            "fired_late_median_ms": round(fired.median, 1), "fired_late_p99_ms": round(fired.p99, 1),
            "fired_late_max_ms": round(max(fired.values), 1),
            "sent_late_p99_ms": round(sent.p99, 1),
            "cpu_ms_per_question": round(cpu_used * 1000 / n, 3),
            "rss_mb": round(current, 1), "rss_peak_mb": round(peak, 1)}
