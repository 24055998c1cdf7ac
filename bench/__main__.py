"""`python -m bench`: every benchmark in one run; JSON lines as figures arrive, then a table."""

from __future__ import annotations

import argparse
import asyncio
import platform
import pstats
import shutil
import tempfile
import time
from pathlib import Path

import aiohttp

from bench.latency import Bare, Fake, run_latency
from bench.procs import TOKENS, askbridge_proc, fake_proc, relay_proc
from bench.reach import run_reach
from bench.scale import ptb_flood, run_scale
from bench.stats import Report, Samples, verdict
from bench.store import run_store


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument("--only", default="store,latency,scale,reach",
                   help="comma-separated subset of store, latency, scale, reach")
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
    p.add_argument("--profile", type=Path, help="run askbridge under cProfile; .prof files here")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, dbs)")
    return p.parse_args(argv)


def latency_rows(report: Report, samples: dict[str, Samples]) -> None:
    for path in ("ask", "answer"):
        med = {s: samples[f"{path}:{s}"].median for s in ("askbridge", "relay", "bare")}
        p99 = {s: samples[f"{path}:{s}"].p99 for s in ("askbridge", "relay", "bare")}
        vs_relay, vs_bare = med["askbridge"] / med["relay"], med["askbridge"] / med["bare"]
        report.emit(f"{path}_path", **{s: samples[f"{path}:{s}"].summary() for s in med},
                    ratio_relay=round(vs_relay, 3), ratio_bare=round(vs_bare, 3),
                    ratio_relay_p99=round(p99["askbridge"] / p99["relay"], 3))
        for s in med:
            report.row(f"{path} path {s}: median / p99",
                       f"{med[s]:.2f} / {p99[s]:.2f} ms ({samples[f'{path}:{s}'].summary()['n']})")
        report.row(f"{path} path askbridge ÷ relay (median)", f"{vs_relay:.2f}×", "≤ 1.5× (aim 1.2×)",
                   verdict(vs_relay <= 1.5))
        report.row(f"{path} path askbridge ÷ relay (p99)", f"{p99['askbridge'] / p99['relay']:.2f}×")
        report.row(f"{path} path askbridge ÷ bare PTB (median)", f"{vs_bare:.2f}×")


def scale_rows(report: Report, figures: dict[str, object], pending: int) -> None:
    f = figures
    restart = f["restart"]
    expiry = f.get("expiry", {})
    assert isinstance(restart, dict) and isinstance(expiry, dict)
    report.emit("scale", **f)
    report.row(f"RSS with {pending} pending (peak)", f"{f['rss_pending_mb']} MB ({f['rss_peak_mb']})",
               "< 300 MB", verdict(float(f["rss_peak_mb"]) < 300))  # type: ignore[arg-type]
    report.row("asks/s over HTTP (202 create)", f"{f['asks_per_s']}", "≥ 500",
               verdict(float(f["asks_per_s"]) >= 500))  # type: ignore[arg-type]
    report.row("asks/s until the fake has every sendMessage", f"{f['delivered_per_s']}")
    report.row("askbridge server CPU per ask (HTTP + store + PTB send)",
               f"{f['server_cpu_ms_per_ask']} ms")
    if expiry:
        within, total = expiry["within_1s"], expiry["expiring"]
        report.row(f"expiries within 1 s ({expiry['concurrent_asks']} asks meanwhile)",
                   f"{within}/{total}, max {expiry['lateness_max_ms']} ms, p99 "
                   f"{expiry['lateness_p99_ms']} ms", "all", verdict(within == total))
    report.row(f"restart with {pending} pending: healthy / answerable",
               f"{restart['healthy_s']} / {restart['answerable_s']} s", "< 3 s",
               verdict(restart["answerable_s"] < 3))


def reach_rows(report: Report, f: dict[str, object]) -> None:
    report.emit("reach", **f)
    report.row(f"reach: {f['timers']} timers of {f['questions']} pending, fired within 1 s of due",
               f"{f['fired_within_1s']}/{f['timers']}, p99 {f['fired_late_p99_ms']} ms, max "
               f"{f['fired_late_max_ms']} ms", "all", verdict(f["fired_within_1s"] == f["timers"]))
    report.row("reach: RSS (peak) / server CPU per question (ask + 3 timers)",
               f"{f['rss_mb']} MB ({f['rss_peak_mb']}) / {f['cpu_ms_per_question']} ms")


def store_rows(report: Report, figures: dict[str, float]) -> None:
    report.emit("store", **figures)
    for c in (1, 16):
        report.row(f"store commits/s, {c} writer(s): askbridge / aiosqlite",
                   f"{figures[f'askbridge_c{c}_per_s']} / {figures[f'aiosqlite_c{c}_per_s']} "
                   f"= {figures[f'ratio_c{c}']:.2f}×")


def print_profiles(folder: Path, top: int = 40) -> None:
    for path in sorted(folder.glob("*.prof")):
        print(f"\n--- cProfile of askbridge: {path} (top {top} by internal time) ---")
        pstats.Stats(str(path)).sort_stats("tottime").print_stats(top)


async def main(args: argparse.Namespace) -> Report:
    only = set(args.only.split(","))
    report = Report()
    tmp = Path(tempfile.mkdtemp(prefix="askbridge-bench-"))
    report.emit("machine", python=platform.python_version(), platform=platform.platform(),
                cpus=len(__import__("os").sched_getaffinity(0)), tmp=str(tmp))
    began = time.monotonic()
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    try:
        if "store" in only:
            store_rows(report, await run_store(tmp, args.store_asks))
        fake = fake_proc(tmp)
        await fake.spawn()
        connector = aiohttp.TCPConnector(limit=args.concurrency + 16)
        async with aiohttp.ClientSession(connector=connector,
                                         timeout=aiohttp.ClientTimeout(total=120)) as http:
            try:
                await fake.ready(http, "/ctl/count?token=x&method=getMe")
                ctl = Fake(http, fake.url)
                if "latency" in only:
                    await latency(args, report, http, ctl, tmp)
                if "scale" in only:
                    result = await run_scale(
                        http, ctl, tmp, n=args.pending, concurrency=args.concurrency,
                        expiring=args.expiring, load=args.expiry_load, sample=args.restart_sample,
                        profile=args.profile / "scale" if args.profile else None)
                    scale_rows(report, result.figures, args.pending)
                if "reach" in only:
                    reach_rows(report, await run_reach(http, ctl, tmp, n=args.reach_pending,
                                                       concurrency=args.concurrency))
            finally:
                await fake.stop()
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    report.emit("total", seconds=round(time.monotonic() - began, 1))
    report.row("whole run", f"{time.monotonic() - began:.0f} s", "< 300 s")
    return report


async def latency(args: argparse.Namespace, report: Report, http: aiohttp.ClientSession,
                  ctl: Fake, tmp: Path) -> None:
    askbridge = askbridge_proc(tmp, ctl.url, TOKENS["askbridge"],
                               profile=args.profile / "latency" if args.profile else None)
    relay = relay_proc(tmp, ctl.url)
    await askbridge.spawn()
    await relay.spawn()
    try:
        await askbridge.ready(http, "/healthz")
        await relay.ready(http, "/healthz")
        async with Bare(ctl.url + "/bot") as bare:
            samples = await run_latency(http, ctl, askbridge, relay, bare, args.rounds,
                                        args.warmup, args.latency_budget)
            flood = await ptb_flood(bare.app.bot, args.flood, args.concurrency)
    finally:
        await askbridge.stop()
        await relay.stop()
    latency_rows(report, samples)
    report.emit("ptb_send_floor", **flood)
    report.row(f"bare PTB send_message/s, {args.concurrency} at once (throughput floor)",
               f"{flood['sends_per_s']} ({flood['cpu_ms_per_send']} ms CPU each)")


def cli() -> None:
    args = parse_args()
    report = asyncio.run(main(args))
    report.print_table()
    if args.profile:
        print_profiles(args.profile)


if __name__ == "__main__":
    cli()
