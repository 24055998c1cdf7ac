"""Ask and answer paths, round by round: askbridge over HTTP and over MCP (2026-07-28), the
durable relay (a SQLite commit before the send), the do-nothing relay, bare python-telegram-bot.

Ask path: the agent's HTTP ask (or the bare `send_message` call) until the fake records
sendMessage. Answer path: a callback_query queued at the fake until the agent's blocking ask
returns (or, bare, until a CallbackQueryHandler fires). Each round runs the four in a rotating
order, one at a time, and waits for each one's trailing calls (answerCallbackQuery, the
finalizing edit) before the next starts, so no measurement overlaps another's work.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import Application, ApplicationBuilder, CallbackQueryHandler, ContextTypes

from bench.procs import AGENT_TOKEN, CHAT_ID, TOKENS, Proc
from bench.stats import Samples

SYSTEMS = ("askbridge", "mcp", "durable", "relay", "bare")


def ask_body(tag: str, timeout: int = 300) -> dict[str, Any]:
    return {"questions": [{
        "id": "deploy_target", "header": "Deploy", "question": f"Where should I deploy? [b:{tag}]",
        "options": [{"label": "Staging (Recommended)", "description": "safe"},
                    {"label": "Production"}, {"label": "Canary"}]}],
        "timeoutSeconds": timeout}


class Fake:
    """The control routes of bench.fakebot."""

    def __init__(self, http: aiohttp.ClientSession, url: str) -> None:
        self.http = http
        self.url = url

    async def event(self, tag: str, method: str = "sendMessage", wait: float = 10.0) -> int:
        async with self.http.get(f"{self.url}/ctl/event", params={
                "tag": tag, "method": method, "wait": str(wait)}) as response:
            if response.status != 200:
                raise RuntimeError(f"the fake never saw {method} for {tag}")
            return int((await response.json())["t"])

    async def tap(self, token: str, tag: str, button: int = 0) -> int:
        async with self.http.post(f"{self.url}/ctl/tap", json={
                "token": token, "tag": tag, "button": button}) as response:
            if response.status != 200:
                raise RuntimeError(f"no message tagged {tag} to tap")
            return int((await response.json())["t"])

    async def count(self, token: str, method: str) -> int:
        async with self.http.get(f"{self.url}/ctl/count",
                                 params={"token": token, "method": method}) as response:
            return int((await response.json())["count"])


class Bare:
    """python-telegram-bot alone: `send_message`, and a CallbackQueryHandler timing its firing."""

    def __init__(self, base_url: str) -> None:
        self.app: Application[Any, Any, Any, Any, Any, Any] = (
            ApplicationBuilder().token(TOKENS["bare"]).base_url(base_url).build())
        self.fired: dict[str, asyncio.Future[int]] = {}
        self.app.add_handler(CallbackQueryHandler(self._on_tap))

    async def _on_tap(self, update: Update, _: ContextTypes.DEFAULT_TYPE) -> None:
        t = time.monotonic_ns()
        query = update.callback_query
        assert query is not None and query.data is not None
        future = self.fired.pop(query.data.partition(":")[0], None)
        if future is not None and not future.done():
            future.set_result(t)
        await query.answer()

    async def __aenter__(self) -> Bare:
        await self.app.initialize()
        assert self.app.updater is not None
        await self.app.updater.start_polling(poll_interval=0, timeout=5)
        await self.app.start()
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self.app.updater is not None
        await self.app.updater.stop()
        await self.app.stop()
        await self.app.shutdown()

    async def send(self, tag: str) -> None:
        markup = InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=f"{tag}:{i}")]
                                       for i, label in enumerate(("Staging", "Production"))])
        self.fired[tag] = asyncio.get_running_loop().create_future()
        await self.app.bot.send_message(CHAT_ID, f"Deploy\nWhere should I deploy? [b:{tag}]",
                                        reply_markup=markup)


@asynccontextmanager
async def mcp_host(url: str) -> AsyncIterator[Client]:
    """A 2026-07-28 MCP host (the official SDK 2.x client) at askbridge's /mcp."""
    headers = {"Authorization": f"Bearer {AGENT_TOKEN}", "X-Askbridge-Session": "mcp"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as http, \
            Client(streamable_http_client(f"{url}/mcp", http_client=http),
                   mode="2026-07-28") as client:
        yield client


Round = Callable[[str], Awaitable[tuple[float, float]]]


async def http_round(http: aiohttp.ClientSession, fake: Fake, url: str, headers: dict[str, str],
                     token: str, tag: str, trailing: tuple[str, ...]) -> tuple[float, float]:
    """(ask ms, answer ms) of one blocking HTTP ask to `url`, answered by a tap on its prompt;
    the `trailing` calls (the tap's answer, a finalizing edit) are awaited before it returns,
    so the next round starts on a quiet server."""
    async def call() -> int:
        async with http.post(url, json=ask_body(tag), headers=headers) as response:
            body = await response.json()
            done = time.monotonic_ns()
        if response.status != 200 or body.get("status") != "answered":
            raise RuntimeError(f"{url} answered {response.status}: {body}")
        return done

    return await tapped_round(fake, token, tag, call, trailing)


async def tapped_round(fake: Fake, token: str, tag: str,
                       call: Callable[[], Coroutine[Any, Any, int]],
                       trailing: tuple[str, ...]) -> tuple[float, float]:
    """Start the blocking `call` (it returns when it got the answer), time the prompt tagged
    `tag` reaching the fake, tap its first button, time the answer reaching the caller."""
    began = time.monotonic_ns()
    asking = asyncio.create_task(call())
    try:
        sent = await fake.event(tag)
        queued = await fake.tap(token, tag)
        done = await asyncio.wait_for(asking, 30)
    finally:
        asking.cancel()
    for method in trailing:
        await fake.event(tag, method)
    return (sent - began) / 1e6, (done - queued) / 1e6


def rounds(http: aiohttp.ClientSession, fake: Fake, askbridge: Proc, relay: Proc,
           durable: Proc, bare: Bare, mcp: Client) -> dict[str, Round]:
    """One round per system: (ask ms, answer ms)."""

    def over_http(url: str, headers: dict[str, str], token: str, tag: str,
                  trailing: tuple[str, ...]) -> Awaitable[tuple[float, float]]:
        return http_round(http, fake, url, headers, token, tag, trailing)

    async def askbridge_round(tag: str) -> tuple[float, float]:
        return await over_http(f"{askbridge.url}/v1/sessions/main/ask",
                               {"Authorization": f"Bearer {AGENT_TOKEN}"}, TOKENS["askbridge"],
                               tag, ("answerCallbackQuery", "editMessageText"))

    async def mcp_round(tag: str) -> tuple[float, float]:
        """The same ask as a 2026-07-28 MCP host's `tools/call` at /mcp (no form: the host
        declares no elicitation), answered by the same tap."""
        async def call() -> int:
            result = await mcp.call_tool("ask_user", ask_body(tag))
            done = time.monotonic_ns()
            content = result.structured_content or {}
            if result.is_error or content.get("status") != "answered":
                raise RuntimeError(f"/mcp answered {result.content}")
            return done

        return await tapped_round(fake, TOKENS["askbridge"], tag, call,
                                  ("answerCallbackQuery", "editMessageText"))

    async def relay_round(tag: str) -> tuple[float, float]:
        return await over_http(f"{relay.url}/ask", {}, TOKENS["relay"], tag,
                               ("answerCallbackQuery",))

    async def durable_round(tag: str) -> tuple[float, float]:
        return await over_http(f"{durable.url}/ask", {}, TOKENS["durable"], tag,
                               ("answerCallbackQuery",))

    async def bare_round(tag: str) -> tuple[float, float]:
        began = time.monotonic_ns()
        await bare.send(tag)
        sent = await fake.event(tag)
        fired = bare.fired[tag]
        queued = await fake.tap(TOKENS["bare"], tag)
        done = await asyncio.wait_for(fired, 30)
        await fake.event(tag, "answerCallbackQuery")
        return (sent - began) / 1e6, (done - queued) / 1e6

    return {"askbridge": askbridge_round, "mcp": mcp_round, "durable": durable_round,
            "relay": relay_round,
            "bare": bare_round}


async def run_latency(http: aiohttp.ClientSession, fake: Fake, askbridge: Proc, relay: Proc,
                      durable: Proc, bare: Bare, mcp: Client, n: int, warmup: int,
                      budget: float) -> dict[str, Samples]:
    """`warmup` unrecorded rounds, then up to `n` recorded ones, stopping after `budget` seconds."""
    by_system = rounds(http, fake, askbridge, relay, durable, bare, mcp)
    ask = {s: Samples(f"ask:{s}") for s in SYSTEMS}
    answer = {s: Samples(f"answer:{s}") for s in SYSTEMS}
    deadline = time.monotonic() + budget
    for i in range(warmup + n):
        if time.monotonic() > deadline:
            break
        k = i % len(SYSTEMS)
        order = SYSTEMS[k:] + SYSTEMS[:k]
        for system in order:
            a, b = await by_system[system](f"{system[:2]}{i}")
            if i >= warmup:
                ask[system].add(a)
                answer[system].add(b)
    return {**{f"ask:{s}": v for s, v in ask.items()},
            **{f"answer:{s}": v for s, v in answer.items()}}
