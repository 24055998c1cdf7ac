"""Fan-out: one question to web, webhook, Telegram and Slack (fakes) against the four bare sends.

askbridge's server CPU per ask (HTTP, store, four deliveries) is compared with the driver's CPU
for the same three external sends done bare (python-telegram-bot, slack_sdk, a signed aiohttp
POST; the web surface has no bare send and counts as zero). Latency: from the agent's ask until
the first and the last of the three external fakes record the prompt.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import aiohttp
from slack_sdk.web.async_client import AsyncWebClient

from bench.latency import Fake, ask_body
from bench.procs import CHAT_ID, TOKENS, askbridge_proc, cpu_seconds
from bench.scale import AUTH, pool, wait_count
from bench.stats import Samples
from bridge.runtime.security import sign

SURFACES = ("web", "webhook:bench:c1", f"telegram:{CHAT_ID}", "slack:C1")
EXTERNAL = ("sendMessage", "slack:chat.postMessage", "webhook")


def extra_toml(fake_url: str) -> str:
    return f"""
[slack]
bot_token_env = "BENCH_SLACK_BOT"
signing_secret_env = "BENCH_SLACK_SECRET"
mode = "http"
base_url = "{fake_url}/slack/api/"
pace = false

[webhooks.bench]
url = "{fake_url}/hook"
secret_env = "BENCH_HOOK_SECRET"
"""


async def _count(fake: Fake, token: str, method: str, at_least: int) -> None:
    began = time.monotonic()
    while await fake.count(token, method) < at_least:
        if time.monotonic() - began > 120:
            raise RuntimeError(f"the fake saw fewer than {at_least} {method} calls")
        await asyncio.sleep(0.05)


async def bare_sends(http: aiohttp.ClientSession, fake_url: str, bot: Any, n: int,
                     concurrency: int) -> float:
    """CPU ms (this process) per set of the three external sends, done bare."""
    slack = AsyncWebClient(token="xoxb-bench", base_url=f"{fake_url}/slack/api/")
    text = "Deploy\nWhere should I deploy? [b:bare-fan]"

    async def one(i: int) -> None:
        body = f'{{"conversation":"c1","questionId":"q{i}","kind":"prompt","text":"{text}"}}'
        await asyncio.gather(
            bot.send_message(CHAT_ID, text),
            slack.chat_postMessage(channel="C1", text=text),
            http.post(f"{fake_url}/hook", data=body.encode(), headers={
                "content-type": "application/json",
                "X-Askbridge-Signature": sign("bench-hook-secret-0123456789", body.encode())}))

    cpu = time.process_time()
    await pool(n, concurrency, one)
    return (time.process_time() - cpu) * 1000 / n


async def run_fanout(http: aiohttp.ClientSession, fake: Fake, tmp: Path, bot: Any, *, n: int,
                     rounds: int, concurrency: int, profile: Path | None = None) -> dict[str, Any]:
    proc = askbridge_proc(tmp, fake.url, TOKENS["fanout"], "fanout", profile, surfaces=SURFACES,
                          extra=extra_toml(fake.url), web=True)
    await proc.spawn()
    first, last = Samples("fanout_first"), Samples("fanout_last")
    try:
        await proc.ready(http, "/healthz", 60)
        for i in range(rounds):  # latency, one at a time
            tag = f"fan{i}"
            t0 = time.monotonic_ns()
            async with http.post(f"{proc.url}/v1/sessions/{tag}/questions",
                                 json=ask_body(tag, 3600), headers=AUTH) as response:
                assert response.status == 202, await response.text()
            seen = [await fake.event(tag, method) for method in EXTERNAL]
            first.add((min(seen) - t0) / 1e6)
            last.add((max(seen) - t0) / 1e6)
        base = {m: await fake.count(t, m) for t, m in
                ((TOKENS["fanout"], "sendMessage"), ("slack", "chat.postMessage"),
                 ("webhook", "prompt"))}
        cpu = cpu_seconds(proc.pid)

        async def ask(i: int) -> None:
            async with http.post(f"{proc.url}/v1/sessions/fc{i}/questions",
                                 json=ask_body(f"fc{i}", 3600), headers=AUTH) as response:
                assert response.status == 202, await response.text()

        took = await pool(n, concurrency, ask)
        await wait_count(fake, "sendMessage", base["sendMessage"] + n, 120, TOKENS["fanout"])
        await _count(fake, "slack", "chat.postMessage", base["chat.postMessage"] + n)
        await _count(fake, "webhook", "prompt", base["prompt"] + n)
        server_ms = (cpu_seconds(proc.pid) - cpu) * 1000 / n
    finally:
        await proc.stop()
    bare_ms = await bare_sends(http, fake.url, bot, n, concurrency)
    return {"asks": n, "asks_per_s": round(n / took, 1), "server_cpu_ms_per_ask": round(server_ms, 3),
            "bare_cpu_ms_per_set": round(bare_ms, 3), "ratio_cpu": round(server_ms / bare_ms, 3),
            "first": first.summary(), "last": last.summary()}
