"""The table: every figure of a run printed against the issue's target for it."""

from __future__ import annotations

from typing import Any

from bench.stats import Report, Samples, verdict

MEDIAN_VS_DURABLE, P99_VS_DURABLE = 1.2, 1.5
"""askbridge against the durable relay (issue 35); against the do-nothing relay and bare PTB the
ratios are reported without a target."""
CPU_VS_PTB, ASKS_VS_FLOOR = 1.5, 0.65
FANOUT_VS_BARE = 1.3
STORE_VS_SQLITE, STORE_VS_ASYNCPG = 0.6, 0.5
RSS_MB, RESTART_S = 150, 2.0
DRAIN_VS_MINIMUM, REFUSED_SHARE, IDLE_FIRST_MS = 1.15, 0.01, 1000.0


def latency_rows(report: Report, samples: dict[str, Samples]) -> None:
    systems = ("askbridge", "durable", "relay", "bare")
    for path in ("ask", "answer"):
        med = {s: samples[f"{path}:{s}"].median for s in systems}
        p99 = {s: samples[f"{path}:{s}"].p99 for s in systems}
        ratios = {f"ratio_{s}{q}": round(m["askbridge"] / m[s], 3)
                  for s in systems[1:] for q, m in (("", med), ("_p99", p99))}
        report.emit(f"{path}_path", **{s: samples[f"{path}:{s}"].summary() for s in med},
                    **ratios)
        for s in med:
            report.row(f"{path} path {s}: median / p99",
                       f"{med[s]:.2f} / {p99[s]:.2f} ms ({samples[f'{path}:{s}'].summary()['n']})")
        vs_durable, p99_durable = ratios["ratio_durable"], ratios["ratio_durable_p99"]
        report.row(f"{path} path askbridge ÷ durable relay (median)", f"{vs_durable:.2f}×",
                   f"≤ {MEDIAN_VS_DURABLE}×", verdict(vs_durable <= MEDIAN_VS_DURABLE))
        report.row(f"{path} path askbridge ÷ durable relay (p99)", f"{p99_durable:.2f}×",
                   f"≤ {P99_VS_DURABLE}×", verdict(p99_durable <= P99_VS_DURABLE))
        report.row(f"{path} path askbridge ÷ relay (median / p99)",
                   f"{ratios['ratio_relay']:.2f}× / {ratios['ratio_relay_p99']:.2f}×")
        report.row(f"{path} path askbridge ÷ bare PTB (median / p99)",
                   f"{ratios['ratio_bare']:.2f}× / {ratios['ratio_bare_p99']:.2f}×")
        mcp = samples[f"{path}:mcp"]
        report.emit(f"{path}_path_mcp", mcp=mcp.summary(),
                    ratio_http=round(mcp.median / med["askbridge"], 3))
        report.row(f"{path} path MCP 2026-07-28: median / p99",
                   f"{mcp.median:.2f} / {mcp.p99:.2f} ms ({mcp.summary()['n']})")
        report.row(f"{path} path MCP ÷ askbridge HTTP (median)",
                   f"{mcp.median / med['askbridge']:.2f}×")


def floor_rows(report: Report, flood: dict[str, float], concurrency: int) -> None:
    report.emit("ptb_send_floor", **flood)
    report.row(f"bare PTB send_message/s, {concurrency} at once (throughput floor)",
               f"{flood['sends_per_s']} ({flood['cpu_ms_per_send']} ms CPU each)")


def scale_rows(report: Report, f: dict[str, Any], pending: int, flood: dict[str, float]) -> None:
    restart, expiry = f["restart"], f.get("expiry", {})
    report.emit("scale", **f)
    report.row(f"RSS with {pending} pending (peak)", f"{f['rss_pending_mb']} MB ({f['rss_peak_mb']})",
               f"< {RSS_MB} MB", verdict(float(f["rss_peak_mb"]) < RSS_MB))
    asks, cpu = float(f["asks_per_s"]), float(f["server_cpu_ms_per_ask"])
    floor, floor_cpu = float(flood["sends_per_s"]), float(flood["cpu_ms_per_send"])
    report.row("asks/s over HTTP (202 create) ÷ bare-PTB floor",
               f"{asks} / {floor} = {asks / floor:.2f}×", f"≥ {ASKS_VS_FLOOR}×",
               verdict(asks / floor >= ASKS_VS_FLOOR))
    report.row("asks/s until the fake has every sendMessage", f"{f['delivered_per_s']}")
    report.row("server CPU per ask ÷ bare PTB send CPU",
               f"{cpu} / {floor_cpu} ms = {cpu / floor_cpu:.2f}×", f"≤ {CPU_VS_PTB}×",
               verdict(cpu / floor_cpu <= CPU_VS_PTB))
    if expiry:
        within, total = expiry["within_1s"], expiry["expiring"]
        report.row(f"expiries within 1 s ({expiry['concurrent_asks']} asks meanwhile)",
                   f"{within}/{total}, max {expiry['lateness_max_ms']} ms, p99 "
                   f"{expiry['lateness_p99_ms']} ms", "all", verdict(within == total))
    report.row(f"restart with {pending} pending: healthy / answerable",
               f"{restart['healthy_s']} / {restart['answerable_s']} s", f"< {RESTART_S:g} s",
               verdict(restart["answerable_s"] < RESTART_S))


def reach_rows(report: Report, f: dict[str, Any]) -> None:
    report.emit("reach", **f)
    report.row(f"reach: {f['timers']} timers of {f['questions']} pending, fired within 1 s of due",
               f"{f['fired_within_1s']}/{f['timers']}, p99 {f['fired_late_p99_ms']} ms, max "
               f"{f['fired_late_max_ms']} ms", "all", verdict(f["fired_within_1s"] == f["timers"]))
    report.row("reach: RSS (peak) / server CPU per question (ask + 3 timers)",
               f"{f['rss_mb']} MB ({f['rss_peak_mb']}) / {f['cpu_ms_per_question']} ms")


def store_rows(report: Report, figures: dict[str, float], bare: str, target: float) -> None:
    report.emit(f"store_{bare}", **figures)
    for c in (1, 16):
        ratio = figures[f"ratio_c{c}"]
        report.row(f"store commits/s, {c} writer(s): askbridge / {bare}",
                   f"{figures[f'askbridge_c{c}_per_s']} / {figures[f'{bare}_c{c}_per_s']} "
                   f"= {ratio:.2f}×", f"≥ {target}×" if c == 1 else "",
                   verdict(ratio >= target) if c == 1 else "")
    report.row(f"store question lifecycles/s on {bare}'s database (5 commits each), 1 / 16",
               f"{figures['lifecycle_c1_per_s']} / {figures['lifecycle_c16_per_s']}")


def fanout_rows(report: Report, f: dict[str, Any], single_ask_ms: float | None) -> None:
    report.emit("fanout", **f)
    ratio = f["ratio_cpu"]
    report.row("fan-out to 4 surfaces: server CPU per ask ÷ the bare sends' CPU",
               f"{f['server_cpu_ms_per_ask']} / {f['bare_cpu_ms_per_set']} ms = {ratio:.2f}×",
               f"≤ {FANOUT_VS_BARE}×", verdict(ratio <= FANOUT_VS_BARE))
    first, last = f["first"]["median_ms"], f["last"]["median_ms"]
    report.row("fan-out: ask → first / last surface's send (median)",
               f"{first:.2f} / {last:.2f} ms ({f['first']['n']})")
    if single_ask_ms is not None:
        report.row("fan-out first surface ÷ single-surface ask path (median)",
                   f"{first / single_ask_ms:.2f}×", "≤ 1.3× (no wait)",
                   verdict(first <= single_ask_ms * FANOUT_VS_BARE))
    report.row("fan-out asks/s (202 create, 4 surfaces each)", f"{f['asks_per_s']}")


def replica_rows(report: Report, f: dict[str, Any]) -> None:
    report.emit("replicas", **f)
    for key in ("r1", "r2", "r3"):
        r = f[key]
        report.row(f"PostgreSQL, {r['replicas']} replica(s): asks/s / answer median / p99",
                   f"{r['asks_per_s']} / {r['answer']['median_ms']:.2f} / "
                   f"{r['answer']['p99_ms']:.2f} ms", "(report)")
        report.row(f"PostgreSQL, {r['replicas']} replica(s): CPU per ask, askbridge (all "
                   "replicas) / PostgreSQL backends",
                   f"{r['server_cpu_ms_per_ask']} / {r['pg_cpu_ms_per_ask']} ms "
                   f"({r['pg_backends']} backends)", "(report)")


def burst_rows(report: Report, b: dict[str, Any]) -> None:
    report.emit("burst", **b)
    where = f"{b['asks']} asks, 100 Telegram chats (10 groups) + 20 Slack channels"
    report.row(f"burst ({where}): prompts sent / lost",
               f"{sum(b['sent'].values())} / {b['lost']} ({b['failed_deliveries']} failed)",
               "0 lost", verdict(b["lost"] == 0 and b["failed_deliveries"] == 0))
    ratio = b["drain_s"] / b["minimum_s"]
    report.row("burst: time to drain ÷ the least the limits allow",
               f"{ratio:.3f}× ({b['drain_s']:.1f} s / {b['minimum_s']:.1f} s)",
               f"≤ {DRAIN_VS_MINIMUM}×", verdict(ratio <= DRAIN_VS_MINIMUM))
    report.row("burst: 429s received ÷ calls",
               f"{100 * b['refused_share']:.2f} % ({sum(b['refused'].values())} of {b['calls']})",
               f"≤ {100 * REFUSED_SHARE:.0f} %", verdict(b["refused_share"] <= REFUSED_SHARE))
    report.row("burst: an idle chat's first prompt, before the burst: ask → sent",
               f"{b['idle_first_ms']:.1f} ms", f"at once (< {IDLE_FIRST_MS:.0f} ms, no window)",
               verdict(b["idle_first_ms"] < IDLE_FIRST_MS))
    report.row("burst: an idle chat's first prompt, asked as the burst drains: ask → sent",
               f"{b['idle_mid_burst_ms']:.1f} ms")
    report.row("burst: … asked once every ask was taken (s after the first) / chats that had "
               "not sent their first prompt then",
               f"{b['asks_taken_s']:.2f} s / {b['chats_yet_to_send']}")
