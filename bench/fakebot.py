"""A lean fake Bot API for benchmarks, run in its own process, with timestamps and control routes.

Every bot token gets its own update queue, so askbridge, the relay and the bare PTB app share one
fake process without stealing each other's updates. Messages are found by a tag `[b:<tag>]` in
their text. Times are `time.monotonic_ns()`: CLOCK_MONOTONIC, one clock for every process here.

Control routes (JSON):
  GET  /ctl/event?tag=T&method=M&wait=S  when the fake first saw M (sendMessage, editMessageText,
                                         answerCallbackQuery) for tag T: {"t", "count"}; 404 on timeout
  POST /ctl/tap {token, tag, button}     queue a callback_query for that message: {"t": queued at}
  GET  /ctl/count?token=X&method=M       how many M calls the token made

  GET  /ctl/limits                       with --limits: 429s answered and the last accepted
                                         prompt's time, per platform

With `--limits` it enforces Telegram's flood limits and Slack's per-channel pace as the tests'
fakes do (the same rules, `tests/fakes`), answering 429 as those platforms do.

Also, for the fan-out benchmark: a Slack Web API (`/slack/api/<method>`, counted under token
"slack") and a webhook gateway (`POST /hook`, counted under token "webhook", method "prompt"),
both recording the first call whose body carries a tag.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import time
from collections import defaultdict
from typing import Any

from aiohttp import web

from tests.fakes.limits import SlidingWindows
from tests.fakes.slack import rate_limits
from tests.fakes.telegram import MESSAGE_METHODS, flood_limits

TAG = re.compile(r"\[b:([\w-]+)\]")
BOT_USER = {"id": 424242, "is_bot": True, "first_name": "Bench", "username": "bench_bot",
            "can_join_groups": True, "can_read_all_group_messages": False,
            "supports_inline_queries": False}


def _ok(result: Any) -> web.Response:
    return web.Response(text=json.dumps({"ok": True, "result": result}),
                        content_type="application/json")


class Bot:
    """One token's state: its update queue and the long-polls waiting on it."""

    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self.next_update = 1
        self.arrived = asyncio.Event()
        self.counts: dict[str, int] = defaultdict(int)


class FakeBotApi:
    def __init__(self, max_poll: float, limits: bool = False) -> None:
        self.max_poll = max_poll
        self.limits = SlidingWindows() if limits else None
        self.refused: dict[str, int] = defaultdict(int)
        self.last: dict[str, int] = {}
        """When the last prompt each platform accepted arrived."""
        self.bots: dict[str, Bot] = defaultdict(Bot)
        self.messages: dict[str, dict[str, Any]] = {}  # tag -> message
        self.tag_of: dict[tuple[int, int], str] = {}  # (chat, message id) -> tag
        self.events: dict[tuple[str, str], int] = {}  # (tag, method) -> first seen
        self.waiters: dict[tuple[str, str], asyncio.Event] = {}
        self.next_message = 1000

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self.api)
        app.router.add_post("/slack/api/{method}", self.slack)
        app.router.add_post("/hook", self.hook)
        app.router.add_get("/ctl/event", self.ctl_event)
        app.router.add_post("/ctl/tap", self.ctl_tap)
        app.router.add_get("/ctl/count", self.ctl_count)
        app.router.add_get("/ctl/limits", self.ctl_limits)
        return app

    def _seen(self, tag: str | None, method: str, t: int) -> None:
        if tag is None or (tag, method) in self.events:
            return
        self.events[(tag, method)] = t
        waiter = self.waiters.pop((tag, method), None)
        if waiter is not None:
            waiter.set()

    # the Bot API -------------------------------------------------------------------------

    async def api(self, request: web.Request) -> web.Response:
        t = time.monotonic_ns()
        bot = self.bots[request.match_info["token"]]
        method = request.match_info["method"]
        if request.content_type == "application/json":
            params: dict[str, Any] = await request.json()
        else:
            params = dict(await request.post())
        wait = self._over("telegram", flood_limits(params.get("chat_id"))
                          if method in MESSAGE_METHODS else [])
        if wait is not None:
            return web.json_response({"ok": False, "error_code": 429, "description":
                                      f"Too Many Requests: retry after {wait}",
                                      "parameters": {"retry_after": wait}}, status=429)
        bot.counts[method] += 1
        if method == "getUpdates":
            return await self.get_updates(bot, params)
        if method == "sendMessage":
            self.last["telegram"] = t
            return self.send_message(params, t)
        if method in ("editMessageText", "editMessageReplyMarkup"):
            key = (int(params["chat_id"]), int(params["message_id"]))
            tag = self.tag_of.get(key)
            self._seen(tag, method, t)
            message = dict(self.messages.get(tag or "", {"message_id": key[1], "date": 0,
                                                          "chat": {"id": key[0], "type": "private"}}))
            message.pop("reply_markup", None)
            if "text" in params:
                message["text"] = params["text"]
            message["edit_date"] = int(time.time())
            return _ok(message)
        if method == "answerCallbackQuery":
            query_id = str(params.get("callback_query_id", ""))
            self._seen(query_id.partition(":")[2] or None, method, t)
            return _ok(True)
        if method == "getMe":
            return _ok(BOT_USER)
        if method in ("deleteWebhook", "setWebhook"):
            return _ok(True)
        return web.Response(status=404, text=json.dumps(
            {"ok": False, "error_code": 404, "description": "Not Found"}))

    def send_message(self, params: dict[str, Any], t: int) -> web.Response:
        chat_id = int(params["chat_id"])
        self.next_message += 1
        text = str(params.get("text", ""))
        message: dict[str, Any] = {
            "message_id": self.next_message, "date": int(time.time()),
            "chat": {"id": chat_id, "type": "private", "first_name": "Person"},
            "from": BOT_USER, "text": text,
        }
        markup = params.get("reply_markup")
        if isinstance(markup, str):
            markup = json.loads(markup)
        if markup and "inline_keyboard" in markup:
            message["reply_markup"] = markup
        found = TAG.search(text)
        if found:
            tag = found.group(1)
            self.messages[tag] = message
            self.tag_of[(chat_id, message["message_id"])] = tag
            self._seen(tag, "sendMessage", t)
        return _ok(message)

    def _over(self, platform: str, limits: list[Any]) -> int | None:
        """Whole seconds to wait when a call breaks the platform's limits (with --limits)."""
        if self.limits is None or not limits:
            return None
        wait = self.limits.over(limits)
        if wait is None:
            return None
        self.refused[platform] += 1
        return max(1, math.ceil(wait))

    async def slack(self, request: web.Request) -> web.Response:
        t = time.monotonic_ns()
        method = request.match_info["method"]
        raw = await request.text()
        args: dict[str, Any] = (json.loads(raw) if request.content_type == "application/json"
                                else dict(await request.post()))
        wait = self._over("slack", rate_limits(method, args))
        if wait is not None:
            return web.json_response({"ok": False, "error": "ratelimited"}, status=429,
                                     headers={"Retry-After": str(wait)})
        self.bots["slack"].counts[method] += 1
        if method == "chat.postMessage":
            self.last["slack"] = t
        found = TAG.search(raw)
        self._seen(found.group(1) if found else None, f"slack:{method}", t)
        self.next_message += 1
        result: dict[str, Any] = {"ok": True, "channel": str(args.get("channel", "C1")),
                                  "ts": f"{self.next_message}.000100",
                                  "user_id": "UBENCH", "user": "bench", "team": "bench",
                                  "bot_id": "BBENCH", "team_id": "T1"}
        return web.json_response(result)

    async def hook(self, request: web.Request) -> web.Response:
        t = time.monotonic_ns()
        raw = await request.text()
        self.bots["webhook"].counts["prompt"] += 1
        found = TAG.search(raw)
        self._seen(found.group(1) if found else None, "webhook", t)
        return web.json_response({"ok": True})

    async def get_updates(self, bot: Bot, params: dict[str, Any]) -> web.Response:
        offset = int(params.get("offset") or 0)
        wait = min(float(params.get("timeout") or 0), self.max_poll)
        bot.updates = [u for u in bot.updates if u["update_id"] >= offset]
        if not bot.updates and wait > 0:
            bot.arrived.clear()
            try:
                await asyncio.wait_for(bot.arrived.wait(), wait)
            except TimeoutError:
                pass
        return _ok(bot.updates[:100])

    # control -----------------------------------------------------------------------------

    async def ctl_event(self, request: web.Request) -> web.Response:
        key = (request.query["tag"], request.query.get("method", "sendMessage"))
        wait = min(float(request.query.get("wait", "10")), 60.0)
        if key not in self.events:
            waiter = self.waiters.setdefault(key, asyncio.Event())
            try:
                await asyncio.wait_for(waiter.wait(), wait)
            except TimeoutError:
                return web.json_response({"error": "not seen"}, status=404)
        return web.json_response({"t": self.events[key]})

    async def ctl_tap(self, request: web.Request) -> web.Response:
        body = await request.json()
        tag = str(body["tag"])
        message = self.messages.get(tag)
        if message is None:
            return web.json_response({"error": "no such message"}, status=404)
        rows = message["reply_markup"]["inline_keyboard"]
        data = rows[int(body.get("button", 0))][0]["callback_data"]
        bot = self.bots[str(body["token"])]
        user = {"id": message["chat"]["id"], "is_bot": False, "first_name": "Person"}
        update = {"update_id": bot.next_update, "callback_query": {
            "id": f"cq{bot.next_update}:{tag}", "from": user, "message": message,
            "chat_instance": "1", "data": data}}
        bot.next_update += 1
        t = time.monotonic_ns()
        bot.updates.append(update)
        bot.arrived.set()
        return web.json_response({"t": t})

    async def ctl_limits(self, _: web.Request) -> web.Response:
        return web.json_response({"refused": self.refused, "last": self.last})

    async def ctl_count(self, request: web.Request) -> web.Response:
        bot = self.bots[request.query["token"]]
        return web.json_response({"count": bot.counts.get(request.query["method"], 0)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--max-poll", type=float, default=5.0)
    parser.add_argument("--limits", action="store_true", help="enforce the platforms' limits")
    args = parser.parse_args()
    web.run_app(FakeBotApi(args.max_poll, args.limits).app(), host="127.0.0.1", port=args.port,
                print=None, access_log=None)


if __name__ == "__main__":
    main()
