"""`python -m bench.ab --base REV`: the ask and answer paths of this work tree against the same
paths at another commit, side by side in one run, with the durable relay as the yardstick.

One run alternates the three round by round (a rotating order, one at a time, as the latency
benchmark does), so a change is compared with the code before it under the same load, not with
a figure from another hour of a shared machine. The base is `git archive REV` unpacked in a
temporary folder and put first on its server's PYTHONPATH; the work tree runs as installed.
Differences within a few percent are noise on these machines: run it twice, swapped if need be.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import subprocess
import tarfile
import tempfile
from collections.abc import Awaitable
from pathlib import Path

import aiohttp

from bench.latency import Fake, http_round
from bench.procs import AGENT_TOKEN, ROOT, TOKENS, Proc, askbridge_proc, fake_proc, relay_proc
from bench.stats import Samples

BASE_TOKEN = "999:bench-base"
SYSTEMS = ("work", "base", "durable")


def unpack(rev: str, into: Path) -> str:
    """The tree of `rev` under `into`; its full commit id."""
    commit = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout.strip()
    archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=ROOT, check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return commit


def one_round(http: aiohttp.ClientSession, fake: Fake, proc: Proc, system: str,
              tag: str) -> Awaitable[tuple[float, float]]:
    """(ask ms, answer ms) for one ask to `proc`, as the latency benchmark times it."""
    if system == "durable":
        return http_round(http, fake, f"{proc.url}/ask", {}, TOKENS["durable"], tag,
                          ("answerCallbackQuery",))
    return http_round(http, fake, f"{proc.url}/v1/sessions/main/ask",
                      {"Authorization": f"Bearer {AGENT_TOKEN}"},
                      TOKENS["askbridge"] if system == "work" else BASE_TOKEN, tag,
                      ("answerCallbackQuery", "editMessageText"))


async def run(base_rev: str, rounds: int, warmup: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="askbridge-ab-"))
    commit = unpack(base_rev, tmp / "base-tree")
    fake = fake_proc(tmp)
    await fake.spawn()
    samples = {f"{path}:{s}": Samples(f"{path}:{s}") for path in ("ask", "answer")
               for s in SYSTEMS}
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as http:
            await fake.ready(http, "/ctl/count?token=x&method=getMe")
            ctl = Fake(http, fake.url)
            procs = {"work": askbridge_proc(tmp, ctl.url, TOKENS["askbridge"], name="work"),
                     "base": askbridge_proc(tmp, ctl.url, BASE_TOKEN, name="base"),
                     "durable": relay_proc(tmp, ctl.url, durable=True)}
            procs["base"].env["PYTHONPATH"] = str(tmp / "base-tree")
            try:
                for proc in procs.values():
                    await proc.spawn()
                for proc in procs.values():
                    await proc.ready(http, "/healthz")
                for i in range(warmup + rounds):
                    k = i % len(SYSTEMS)
                    for system in SYSTEMS[k:] + SYSTEMS[:k]:
                        ask, answer = await one_round(http, ctl, procs[system], system,
                                                      f"{system[:2]}{i}")
                        if i >= warmup:
                            samples[f"ask:{system}"].add(ask)
                            samples[f"answer:{system}"].add(answer)
            finally:
                for proc in procs.values():
                    await proc.stop()
    finally:
        await fake.stop()
    print(f"base: {base_rev} ({commit[:10]}); work: this tree; {rounds} rounds each")
    for path in ("ask", "answer"):
        med = {s: samples[f"{path}:{s}"].median for s in SYSTEMS}
        p99 = {s: samples[f"{path}:{s}"].p99 for s in SYSTEMS}
        for s in SYSTEMS:
            print(f"  {path:6s} {s:7s} median {med[s]:6.3f} ms  p99 {p99[s]:6.3f} ms")
        print(f"  {path:6s} work ÷ base {med['work'] / med['base']:.3f}× median, "
              f"{p99['work'] / p99['base']:.3f}× p99;  ÷ durable: work "
              f"{med['work'] / med['durable']:.3f}×, base {med['base'] / med['durable']:.3f}×")


def cli() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.ab", description=__doc__)
    p.add_argument("--base", default="HEAD", help="the commit to compare with (default HEAD)")
    p.add_argument("--rounds", type=int, default=300, help="recorded rounds per system")
    p.add_argument("--warmup", type=int, default=20, help="unrecorded rounds first")
    args = p.parse_args()
    asyncio.run(run(args.base, args.rounds, args.warmup))


if __name__ == "__main__":
    cli()
