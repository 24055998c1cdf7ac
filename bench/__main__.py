"""`python -m bench`: every benchmark in one run; JSON lines as figures arrive, then a table."""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import pstats
import shutil
import tempfile
import time
from pathlib import Path

import aiohttp

from bench.burst import run_burst
from bench.fanout import run_fanout
from bench.history import history_bench
from bench.latency import Bare, Fake, mcp_host, run_latency
from bench.pg import run_store_pg
from bench.procs import TOKENS, askbridge_proc, fake_proc, relay_proc
from bench.reach import run_reach
from bench.replicas import run_replicas
from bench.rows import (
    STORE_VS_ASYNCPG,
    STORE_VS_SQLITE,
    burst_rows,
    fanout_rows,
    floor_rows,
    latency_rows,
    reach_rows,
    replica_rows,
    scale_rows,
    store_rows,
)
from bench.scale import ptb_flood, run_scale
from bench.stats import Report
from bench.store import run_store

EVERYTHING = "store,pgstore,history,latency,scale,reach,fanout,replicas,burst"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument("--only", default=EVERYTHING, help=f"comma-separated subset of {EVERYTHING}")
    p.add_argument("--rounds", type=int, default=200, help="recorded latency rounds per system")
    p.add_argument("--warmup", type=int, default=20, help="unrecorded rounds first")
    p.add_argument("--latency-budget", type=float, default=90.0, help="seconds, at most")
    p.add_argument("--pending", type=int, default=10_000, help="questions pending at once")
    p.add_argument("--concurrency", type=int, default=32, help="asks in flight during scale")
    p.add_argument("--expiring", type=int, default=2_000,
                   help="30 s questions whose expiry is timed, on top of the pending ones")
    p.add_argument("--expiry-load", type=int, default=2_000,
                   help="asks sent while those expire")
    p.add_argument("--restart-sample", type=int, default=20,
                   help="questions answered after the restart, spread over all pending")
    p.add_argument("--reach-pending", type=int, default=10_000,
                   help="questions with two reminders and one escalation tier each")
    p.add_argument("--flood", type=int, default=2_000, help="bare PTB sends for the floor")
    p.add_argument("--store-asks", type=int, default=3_000, help="commits per store run")
    p.add_argument("--fanout-asks", type=int, default=1_000, help="asks to 4 surfaces (CPU)")
    p.add_argument("--fanout-rounds", type=int, default=100, help="fan-out latency rounds")
    p.add_argument("--replica-asks", type=int, default=1_000, help="asks per replica setup")
    p.add_argument("--replica-rounds", type=int, default=60, help="answer rounds per setup")
    p.add_argument("--history-rounds", type=int, default=300,
                   help="answer rounds per store with 100 and with 100,000 past deliveries")
    p.add_argument("--retention-before", type=float, default=15.0,
                   help="seconds of asks timed before retention starts deleting 100,000")
    p.add_argument("--history-stores", default="sqlite,postgres", help="sqlite, postgres or both")
    p.add_argument("--burst-asks", type=int, default=2_000,
                   help="asks in the burst to 100 Telegram chats and 20 Slack channels")
    p.add_argument("--profile", type=Path, help="run askbridge under cProfile; .prof files here")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, dbs)")
    return p.parse_args(argv)


def print_profiles(folder: Path, top: int = 40) -> None:
    for path in sorted(folder.glob("*.prof")):
        print(f"\n--- cProfile of askbridge: {path} (top {top} by internal time) ---")
        pstats.Stats(str(path)).sort_stats("tottime").print_stats(top)


async def main(args: argparse.Namespace) -> Report:
    only = set(args.only.split(","))
    report = Report()
    tmp = Path(tempfile.mkdtemp(prefix="askbridge-bench-"))
    report.emit("machine", python=platform.python_version(), platform=platform.platform(),
                cpus=len(os.sched_getaffinity(0)), tmp=str(tmp), load=os.getloadavg())
    began = time.monotonic()
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    try:
        if "store" in only:
            store_rows(report, await run_store(tmp, args.store_asks), "aiosqlite",
                       STORE_VS_SQLITE)
        if "pgstore" in only:
            store_rows(report, await run_store_pg(args.store_asks), "asyncpg", STORE_VS_ASYNCPG)
        if "history" in only:
            await history_bench(report, tmp, args.history_stores.split(","),
                                args.history_rounds, args.retention_before)
        if only & {"latency", "scale", "reach", "fanout", "replicas"}:  # these need the fake
            await with_fake(args, only, report, tmp)
        if "burst" in only:
            burst_rows(report, await run_burst(tmp, args.burst_asks, args.concurrency))
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    report.emit("total", seconds=round(time.monotonic() - began, 1), load=os.getloadavg())
    report.row("whole run", f"{time.monotonic() - began:.0f} s", "< 600 s")
    return report


async def with_fake(args: argparse.Namespace, only: set[str], report: Report, tmp: Path) -> None:
    fake = fake_proc(tmp)
    await fake.spawn()
    connector = aiohttp.TCPConnector(limit=args.concurrency + 16)
    try:
        async with aiohttp.ClientSession(connector=connector,
                                         timeout=aiohttp.ClientTimeout(total=120)) as http:
            await fake.ready(http, "/ctl/count?token=x&method=getMe")
            ctl = Fake(http, fake.url)
            async with Bare(ctl.url + "/bot") as bare:
                await with_bare(args, only, report, tmp, http, ctl, bare)
    finally:
        await fake.stop()


async def with_bare(args: argparse.Namespace, only: set[str], report: Report, tmp: Path,
                    http: aiohttp.ClientSession, ctl: Fake, bare: Bare) -> None:
    single: float | None = None
    if "latency" in only:
        single = await latency(args, report, http, ctl, tmp, bare)
    if only & {"scale", "latency"}:
        flood = await ptb_flood(bare.app.bot, args.flood, args.concurrency)
        floor_rows(report, flood, args.concurrency)
    if "scale" in only:
        result = await run_scale(
            http, ctl, tmp, n=args.pending, concurrency=args.concurrency,
            expiring=args.expiring, load=args.expiry_load, sample=args.restart_sample,
            profile=args.profile / "scale" if args.profile else None)
        scale_rows(report, result.figures, args.pending, flood)
    if "reach" in only:
        reach_rows(report, await run_reach(
            http, ctl, tmp, n=args.reach_pending, concurrency=args.concurrency,
            profile=args.profile / "reach" if args.profile else None))
    if "fanout" in only:
        fanout_rows(report, await run_fanout(http, ctl, tmp, bare.app.bot, n=args.fanout_asks,
                                             rounds=args.fanout_rounds,
                                             concurrency=args.concurrency,
                                             profile=args.profile / "fanout" if args.profile
                                             else None), single)
    if "replicas" in only:
        replica_rows(report, await run_replicas(http, ctl, tmp, n=args.replica_asks,
                                                rounds=args.replica_rounds,
                                                concurrency=args.concurrency))


async def latency(args: argparse.Namespace, report: Report, http: aiohttp.ClientSession,
                  ctl: Fake, tmp: Path, bare: Bare) -> float:
    """The ask and answer paths; the askbridge ask path's median (ms)."""
    askbridge = askbridge_proc(tmp, ctl.url, TOKENS["askbridge"],
                               profile=args.profile / "latency" if args.profile else None)
    relay = relay_proc(tmp, ctl.url)
    durable = relay_proc(tmp, ctl.url, durable=True)
    procs = (askbridge, relay, durable)
    try:
        for proc in procs:
            await proc.spawn()
        for proc in procs:
            await proc.ready(http, "/healthz")
        async with mcp_host(askbridge.url) as mcp:
            samples = await run_latency(http, ctl, askbridge, relay, durable, bare, mcp,
                                        args.rounds, args.warmup, args.latency_budget)
    finally:
        for proc in procs:
            await proc.stop()
    latency_rows(report, samples)
    return samples["ask:askbridge"].median


def cli() -> None:
    args = parse_args()
    report = asyncio.run(main(args))
    report.print_table()
    if args.profile:
        print_profiles(args.profile)


if __name__ == "__main__":
    cli()
