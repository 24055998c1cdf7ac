"""A fake Telegram Bot API (aiohttp on 127.0.0.1) that the real python-telegram-bot talks to."""

from __future__ import annotations

import asyncio
import copy
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from aiohttp import web

from tests.fakes.limits import Limit, SlidingWindows

TOKEN = "123456:TEST-fake-token_abcdefghijklmnop"
PAYLOADS = Path(__file__).parent / "payloads" / "telegram"
_JSON_FIELDS = {"reply_markup", "entities", "allowed_updates", "reply_parameters"}
_BOOL_FIELDS = {"show_alert", "drop_pending_updates"}
_INT_FIELDS = {"chat_id", "message_id", "message_thread_id", "offset", "limit", "timeout"}


def payload(name: str) -> dict[str, Any]:
    """A recorded Bot API object by name (`update_callback_query`, `user_owner`, …), fresh copy."""
    data: dict[str, Any] = json.loads((PAYLOADS / f"{name}.json").read_text())
    return data


@dataclass
class Call:
    method: str
    params: dict[str, Any]


def _decode(params: dict[str, Any]) -> dict[str, Any]:
    """PTB posts form fields: nested objects arrive as JSON strings, numbers as text."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        if key in _JSON_FIELDS and isinstance(value, str):
            value = json.loads(value)
        elif key in _BOOL_FIELDS and isinstance(value, str):
            value = value.lower() == "true"
        elif key in _INT_FIELDS and isinstance(value, str) and value.lstrip("-").isdigit():
            value = int(value)
        out[key] = value
    return out


MAX_CALLBACK_BYTES = 64
MAX_BUTTONS = 100


def markup_problem(markup: Any) -> str | None:
    """What the Bot API says about an inline keyboard that breaks its limits, or None."""
    if not isinstance(markup, dict) or "inline_keyboard" not in markup:
        return None
    buttons = [b for row in markup["inline_keyboard"] for b in row]
    if len(buttons) > MAX_BUTTONS:
        return "Bad Request: BUTTONS_TOO_MUCH"
    for button in buttons:
        data = button.get("callback_data")
        if data is not None and not 1 <= len(str(data).encode()) <= MAX_CALLBACK_BYTES:
            return "Bad Request: BUTTON_DATA_INVALID"
        if not str(button.get("text", "")).strip():
            return "Bad Request: text buttons are unallowed in the inline keyboard"
    return None


MESSAGE_METHODS = {"sendMessage", "editMessageText", "editMessageReplyMarkup"}
"""What Telegram's flood limits count (per the Bot API FAQ): messages sent and edited."""


def flood_limits(chat_id: Any, group: tuple[int, float] = (20, 60.0)) -> list[Limit]:
    """30 messages a second per bot, 1 a second per chat, 20 a minute per group (a negative id
    or a `@channel`)."""
    chat = str(chat_id)
    limits: list[Limit] = [("bot", 30, 1.0), (("chat", chat), 1, 1.0)]
    if chat.startswith(("-", "@")):
        limits.append((("group", chat), *group))
    return limits


def _error(code: int, description: str, **parameters: Any) -> web.Response:
    body: dict[str, Any] = {"ok": False, "error_code": code, "description": description}
    if parameters:
        body["parameters"] = parameters
    return web.json_response(body, status=code)


class FakeTelegram:
    """Serves getMe, getUpdates (long-poll), sendMessage, edits and callback answers."""

    def __init__(self, token: str = TOKEN, max_poll: float = 1.0, limits: bool = True,
                 group_limit: tuple[int, float] = (20, 60.0)) -> None:
        self.token = token
        self.group_limit = group_limit
        self.limits = SlidingWindows() if limits else None
        """Telegram's flood limits, enforced; `limits.refused` counts the 429s sent."""
        self.refused: list[Call] = []
        """Calls answered 429 (not in `calls`: Telegram did nothing with them)."""
        self.max_poll = max_poll
        self.me = payload("user_bot")
        self.calls: list[Call] = []
        self.messages: dict[tuple[int, int], dict[str, Any]] = {}
        self.chats: dict[int, dict[str, Any]] = {}
        self.markups: dict[tuple[int, int], dict[str, Any]] = {}
        """Every reply_markup sent, by message (force_reply ones are not echoed in messages)."""
        self.failures: dict[str, list[web.Response]] = {}
        self.holds: dict[str, asyncio.Event] = {}
        """Calls of a method answered only once its event is set."""
        self._updates: list[dict[str, Any]] = []
        self._next_update = 1
        self._next_message = 100
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._closing = False
        self.port = 0

    # lifecycle ---------------------------------------------------------------------------

    async def __aenter__(self) -> FakeTelegram:
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def __aexit__(self, t: type[BaseException] | None, e: BaseException | None,
                        tb: TracebackType | None) -> None:
        async with self._changed:  # release held long-polls so shutdown does not wait them out
            self._closing = True
            self._changed.notify_all()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    # test controls -----------------------------------------------------------------------

    def add_chat(self, chat: dict[str, Any]) -> None:
        self.chats[chat["id"]] = chat

    def fail(self, method: str, code: int, description: str, times: int = 1,
             **parameters: Any) -> None:
        """Answer the next `times` calls of `method` with an error (429, 5xx, 400 …)."""
        for _ in range(times):
            self.failures.setdefault(method, []).append(_error(code, description, **parameters))

    async def push(self, update: dict[str, Any]) -> dict[str, Any]:
        """Queue an update for getUpdates; returns it with its update_id."""
        async with self._changed:
            update = {**update, "update_id": self._next_update}
            self._next_update += 1
            self._updates.append(update)
            self._changed.notify_all()
        return update

    def callback_update(self, message: dict[str, Any], user: dict[str, Any],
                        data: str) -> dict[str, Any]:
        update = payload("update_callback_query")
        query = update["callback_query"]
        query.update({"id": f"cq{time.monotonic_ns()}", "from": user,
                      "message": copy.deepcopy(message), "data": data})
        return update

    async def tap(self, message: dict[str, Any], user: dict[str, Any], label: str) -> str:
        """Press the button captioned `label` on `message`; returns the callback query id."""
        update = self.callback_update(message, user, self.button_data(message, label))
        await self.push(update)
        return str(update["callback_query"]["id"])

    def message_update(self, chat: dict[str, Any], user: dict[str, Any], text: str,
                       reply_to: dict[str, Any] | None = None) -> dict[str, Any]:
        update = payload("update_message")
        message = update["message"]
        message.update({"message_id": self._new_message_id(), "date": int(time.time()),
                        "chat": chat, "from": user, "text": text})
        if reply_to is not None:
            message["reply_to_message"] = copy.deepcopy(reply_to)
        thread = reply_to.get("message_thread_id") if reply_to else None
        if thread is not None:
            message.update({"message_thread_id": thread, "is_topic_message": True})
        return update

    async def say(self, chat: dict[str, Any], user: dict[str, Any], text: str,
                  reply_to: dict[str, Any] | None = None) -> dict[str, Any]:
        update = await self.push(self.message_update(chat, user, text, reply_to))
        return dict(update["message"])

    # reading what the bot did --------------------------------------------------------------

    def calls_of(self, method: str) -> list[dict[str, Any]]:
        return [c.params for c in self.calls if c.method == method]

    @staticmethod
    def buttons(message: dict[str, Any]) -> list[str]:
        rows = (message.get("reply_markup") or {}).get("inline_keyboard", [])
        return [b["text"] for row in rows for b in row]

    @staticmethod
    def button_data(message: dict[str, Any], label: str) -> str:
        rows = message["reply_markup"]["inline_keyboard"]
        return next(str(b["callback_data"]) for row in rows for b in row if b["text"] == label)

    def callback_answer(self, query_id: str) -> dict[str, Any] | None:
        return next((p for p in self.calls_of("answerCallbackQuery")
                     if p.get("callback_query_id") == query_id), None)

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
        """Wait (bounded) until `predicate()` is truthy after some call reached the fake."""
        result: Any = None

        def check() -> bool:
            nonlocal result
            result = predicate()
            return bool(result)

        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(check), timeout)
        return result

    async def sent(self, chat_id: int, where: Callable[[dict[str, Any]], bool] = bool,
                   timeout: float = 10.0) -> dict[str, Any]:
        """The newest message the bot sent in `chat_id` that satisfies `where`."""
        def find() -> dict[str, Any] | None:
            mine = [m for (c, _), m in self.messages.items() if c == chat_id and where(m)]
            return mine[-1] if mine else None
        found: dict[str, Any] = await self.wait_for(find, timeout)
        return found

    # the Bot API -------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return _error(401, "Unauthorized")
        method = request.match_info["method"]
        if request.content_type == "application/json":
            raw: dict[str, Any] = await request.json()
        else:
            raw = dict(await request.post())
        params = _decode(raw)
        wait = None if self.failures.get(method) else self._over_limit(method, params)
        if wait is not None:  # (a failure a test queued is answered instead, and not counted)
            self.refused.append(Call(method, params))
            return _error(429, f"Too Many Requests: retry after {wait}", retry_after=wait)
        async with self._changed:
            self.calls.append(Call(method, params))
            self._changed.notify_all()
            queued = self.failures.get(method)
            if queued:
                return queued.pop(0)
        if method == "getUpdates":
            return await self._get_updates(params)
        hold = self.holds.get(method)
        if hold is not None:
            await hold.wait()
        handler = getattr(self, f"_api_{method}", None)
        if handler is None:
            return _error(404, "Not Found")
        async with self._changed:
            response: web.Response = handler(params)
            self._changed.notify_all()
        return response

    def _over_limit(self, method: str, params: dict[str, Any]) -> int | None:
        """Whole seconds to wait when the call breaks a flood limit, as Telegram says it."""
        if self.limits is None or method not in MESSAGE_METHODS:
            return None
        wait = self.limits.over(flood_limits(params.get("chat_id"), self.group_limit))
        return None if wait is None else max(1, math.ceil(wait))

    @staticmethod
    def _ok(result: Any) -> web.Response:
        return web.json_response({"ok": True, "result": result})

    def _new_message_id(self) -> int:
        self._next_message += 1
        return self._next_message

    async def _get_updates(self, params: dict[str, Any]) -> web.Response:
        offset = int(params.get("offset") or 0)
        wait = min(float(params.get("timeout") or 0), self.max_poll)
        async with self._changed:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
            if not self._updates and wait > 0:
                try:
                    await asyncio.wait_for(self._changed.wait_for(
                        lambda: bool(self._updates) or self._closing),
                                           wait)
                except TimeoutError:
                    pass
            return self._ok(list(self._updates))

    def _api_getMe(self, _: dict[str, Any]) -> web.Response:  # noqa: N802 - Bot API names
        return self._ok(self.me)

    def _api_deleteWebhook(self, _: dict[str, Any]) -> web.Response:  # noqa: N802
        return self._ok(True)

    def _api_setWebhook(self, _: dict[str, Any]) -> web.Response:  # noqa: N802
        return self._ok(True)

    def _api_answerCallbackQuery(self, _: dict[str, Any]) -> web.Response:  # noqa: N802
        return self._ok(True)

    def _chat(self, chat_id: int) -> dict[str, Any]:
        if chat_id in self.chats:
            return self.chats[chat_id]
        if chat_id > 0:
            return {"id": chat_id, "type": "private", "first_name": "Person"}
        return {"id": chat_id, "type": "supergroup", "title": "A group"}

    def _api_sendMessage(self, p: dict[str, Any]) -> web.Response:  # noqa: N802
        problem = markup_problem(p.get("reply_markup"))
        if problem:
            return _error(400, problem)
        chat_id = int(p["chat_id"])
        message: dict[str, Any] = {
            "message_id": self._new_message_id(), "date": int(time.time()),
            "chat": self._chat(chat_id), "from": self.me, "text": p["text"],
        }
        markup = p.get("reply_markup")
        if markup:
            self.markups[(chat_id, message["message_id"])] = markup
        if markup and "inline_keyboard" in markup:
            message["reply_markup"] = markup
        if p.get("entities"):
            message["entities"] = p["entities"]
        if p.get("message_thread_id"):
            message.update({"message_thread_id": p["message_thread_id"],
                            "is_topic_message": True})
        self.messages[(chat_id, message["message_id"])] = message
        return self._ok(message)

    def _edit(self, p: dict[str, Any], text: str | None) -> web.Response:
        problem = markup_problem(p.get("reply_markup"))
        if problem:
            return _error(400, problem)
        key = (int(p["chat_id"]), int(p["message_id"]))
        message = self.messages.get(key)
        if message is None:
            return _error(400, "Bad Request: message to edit not found")
        changed = dict(message)
        if text is not None:
            changed["text"] = text
        changed.pop("reply_markup", None)
        if p.get("reply_markup"):
            changed["reply_markup"] = p["reply_markup"]
        if changed == message:
            return _error(400, "Bad Request: message is not modified")
        changed["edit_date"] = int(time.time())
        self.messages[key] = changed
        return self._ok(changed)

    def _api_editMessageText(self, p: dict[str, Any]) -> web.Response:  # noqa: N802
        return self._edit(p, str(p["text"]))

    def _api_editMessageReplyMarkup(self, p: dict[str, Any]) -> web.Response:  # noqa: N802
        return self._edit(p, None)
