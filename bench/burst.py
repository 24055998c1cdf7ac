"""Burst: thousands of asks at once to 100 Telegram chats (10 of them groups) and 20 Slack
channels, on a fake that enforces the platforms' limits (bench.fakebot --limits).

Each of 100 agents has one Telegram chat and one Slack channel (agent i: chat i, channel i % 20);
ask i goes to agent i % 100 in a session of its own, so every chat gets n/100 prompts and every
channel n/20. Measured: prompts the fake accepted (none may be lost), 429s it answered, the time
from the first ask until the last prompt arrived against the least the limits allow, and how
soon the first prompt to an idle chat leaves (before the burst, and asked while it drains).
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp

from bench.latency import Fake, ask_body
from bench.procs import Proc, bench_env, fake_proc, free_port
from bench.scale import pool

TOKEN = "777:bench-burst"
AGENTS, CHANNELS = 100, 20
IDLE_CHATS = (9001, 9002)
"""Chats with no burst of their own: one asked before the burst, one while it drains."""
LIMITS = {"bot": (30, 1.0), "chat": (1, 1.0), "group": (20, 60.0), "channel": (1, 1.0)}


def chat(i: int) -> int:
    """Every tenth chat is a group (a negative id), the rest private chats."""
    return -1005000 - i if i % 10 == 9 else 5000 + i


def agent_token(i: int) -> str:
    return f"bench-burst-agent-{i:03d}-0123456789abcdef"


def config(data: Path, port: int, fake_url: str) -> str:
    agents = [(f"a{i}", [f"telegram:{chat(i)}", f"slack:C{i % CHANNELS:03d}"])
              for i in range(AGENTS)]
    agents += [(f"idle{n}", [f"telegram:{c}"]) for n, c in enumerate(IDLE_CHATS)]
    tables = "".join(
        f'[[agents]]\nname = "{name}"\ntoken_env = "BURST_AGENT_{n}"\nrole = "main"\n'
        f"surfaces = [{', '.join(repr(s).replace(chr(39), chr(34)) for s in surfaces)}]\n\n"
        for n, (name, surfaces) in enumerate(agents))
    return f"""\
data_dir = "{data}"

[server]
host = "127.0.0.1"
port = {port}

[store]
path = "{data / "askbridge.db"}"

[web]
enabled = false

{tables}[telegram]
token_env = "BENCH_TELEGRAM_TOKEN"
base_url = "{fake_url}/bot"
poll_timeout = 5

[slack]
bot_token_env = "BENCH_SLACK_BOT"
signing_secret_env = "BENCH_SLACK_SECRET"
mode = "http"
base_url = "{fake_url}/slack/api/"
"""


def minimum_seconds(n: int) -> float:
    """The least time the limits allow for the burst's prompts: for each window, calls beyond
    its first full window wait a whole window per `capacity` more."""
    def span(calls: int, limit: str) -> float:
        capacity, seconds = LIMITS[limit]
        return (math.ceil(calls / capacity) - 1) * seconds if calls else 0.0

    per_chat = Counter(chat(i % AGENTS) for i in range(n))
    per_channel = Counter(i % AGENTS % CHANNELS for i in range(n))
    return max([span(n, "bot")]
               + [max(span(k, "chat"), span(k, "group") if c < 0 else 0.0)
                  for c, k in per_chat.items()]
               + [span(k, "channel") for k in per_channel.values()])


def askbridge(tmp: Path, fake_url: str) -> Proc:
    data = tmp / "burst"
    data.mkdir(parents=True, exist_ok=True)
    port = free_port()
    (data / "askbridge.toml").write_text(config(data, port, fake_url))
    env = bench_env(BENCH_TELEGRAM_TOKEN=TOKEN, BENCH_SLACK_BOT="xoxb-bench",
                    BENCH_SLACK_SECRET="bench-slack-secret",
                    **{f"BURST_AGENT_{n}": agent_token(n) for n in range(AGENTS + len(IDLE_CHATS))})
    return Proc("askbridge (burst)", [sys.executable, "-m", "bridge", "serve", "--config",
                                      str(data / "askbridge.toml")], port, data / "serve.log", env)


async def ask(http: aiohttp.ClientSession, url: str, agent: int, tag: str) -> None:
    async with http.post(f"{url}/v1/sessions/{tag}/questions", json=ask_body(tag, 3600),
                         headers={"Authorization": f"Bearer {agent_token(agent)}"}) as response:
        assert response.status == 202, await response.text()


async def first_prompt_ms(http: aiohttp.ClientSession, fake: Fake, url: str, idle: int) -> float:
    """An idle chat's first prompt: from the ask until the fake accepts it."""
    tag = f"idle{idle}"
    began = time.monotonic_ns()
    await ask(http, url, AGENTS + idle, tag)
    return (await fake.event(tag, wait=600) - began) / 1e6


async def drained(fake: Fake, n: int, budget: float) -> None:
    deadline = time.monotonic() + budget
    while (await fake.count(TOKEN, "sendMessage") < n + len(IDLE_CHATS)
           or await fake.count("slack", "chat.postMessage") < n):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the burst did not drain within {budget:.0f} s")
        await asyncio.sleep(0.25)


async def run_burst(tmp: Path, n: int, concurrency: int) -> dict[str, Any]:
    fake_p = fake_proc(tmp, limits=True)
    await fake_p.spawn()
    proc = askbridge(tmp, fake_p.url)
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600)) as http:
            await fake_p.ready(http, "/ctl/count?token=x&method=getMe")
            fake = Fake(http, fake_p.url)
            await proc.spawn()
            await proc.ready(http, "/healthz", 60)
            idle_before = await first_prompt_ms(http, fake, proc.url, 0)
            began = time.monotonic_ns()
            await pool(n, concurrency, lambda i: ask(http, proc.url, i % AGENTS, f"u{i}"))
            taken_s = (time.monotonic_ns() - began) / 1e9
            # Chats with fresh windows go first, so until each has sent one prompt the bot's
            # sends so far (less the idle chat's before the burst) are chats that have.
            firsts = await fake.count(TOKEN, "sendMessage") - 1
            idle_during = await first_prompt_ms(http, fake, proc.url, 1)
            await drained(fake, n, 10 * minimum_seconds(n) + 120)
            async with http.get(f"{fake_p.url}/ctl/limits") as response:
                limits = await response.json()
            sent = {"telegram": await fake.count(TOKEN, "sendMessage") - len(IDLE_CHATS),
                    "slack": await fake.count("slack", "chat.postMessage")}
    finally:
        await proc.stop()
        await fake_p.stop()
    failed = (tmp / "burst" / "serve.log").read_text().count("delivery_failed")
    refused = sum(limits["refused"].values())
    calls = sum(sent.values()) + len(IDLE_CHATS) + refused
    drain = (max(limits["last"].values()) - began) / 1e9
    return {"asks": n, "prompts": 2 * n, "sent": sent, "lost": 2 * n - sum(sent.values()),
            "failed_deliveries": failed, "refused": limits["refused"], "calls": calls,
            "refused_share": refused / calls, "drain_s": round(drain, 2),
            "minimum_s": minimum_seconds(n), "idle_first_ms": round(idle_before, 1),
            "idle_mid_burst_ms": round(idle_during, 1), "asks_taken_s": round(taken_s, 2),
            "chats_yet_to_send": max(0, min(n, AGENTS) - firsts)}
