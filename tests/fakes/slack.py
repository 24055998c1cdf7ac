"""A fake Slack: the Web API methods askbridge calls and a Socket Mode websocket (aiohttp)."""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import math
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web
from slack_sdk.signature import SignatureVerifier

from tests.fakes.limits import Limit, SlidingWindows
from tests.harness import until

PAYLOADS = Path(__file__).parent / "payloads" / "slack"
BOT_TOKEN = "xoxb-test-bot-token"
APP_TOKEN = "xapp-test-app-token"
SIGNING_SECRET = "test-slack-signing-secret"
EXPIRED_TRIGGER = "expired-trigger"
ACK_TIMEOUT = 10.0


def rate_limits(method: str, args: dict[str, Any]) -> list[Limit]:
    """A channel takes about one message a second; chat.update is Tier 3, 50 a minute."""
    if method == "chat.postMessage":
        return [(("channel", str(args.get("channel"))), 1, 1.0)]
    if method == "chat.update":
        return [("chat.update", 50, 60.0)]
    return []


def payload(name: str) -> dict[str, Any]:
    """A named recorded payload from tests/fakes/payloads/slack/ (a fresh copy)."""
    data: dict[str, Any] = json.loads((PAYLOADS / f"{name}.json").read_text())
    return data


MAX_BLOCKS, MAX_CHOICES, MAX_ACTION_ID = 50, 10, 255


def blocks_problem(blocks: Any) -> str | None:
    """Why Slack would answer `invalid_blocks` for these blocks, or None."""
    if not isinstance(blocks, list):
        return None
    if len(blocks) > MAX_BLOCKS:
        return "invalid_blocks"
    elements = [e for b in blocks for e in b.get("elements", []) if b.get("type") == "actions"]
    elements += [b["accessory"] for b in blocks if isinstance(b.get("accessory"), dict)]
    for element in elements:
        if len(str(element.get("action_id", ""))) > MAX_ACTION_ID:
            return "invalid_blocks"
        if element.get("type") in ("checkboxes", "radio_buttons") and \
                not 1 <= len(element.get("options", [])) <= MAX_CHOICES:
            return "invalid_blocks"
    return None


@dataclass
class Call:
    method: str
    args: dict[str, Any]


@dataclass
class Failure:
    status: int
    error: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeSlack:
    """Records every Web API call; `messages` holds each posted message as it is now."""

    bot_token: str = BOT_TOKEN
    app_token: str = APP_TOKEN
    base_url: str = ""
    calls: list[Call] = field(default_factory=list)
    messages: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    failures: dict[str, list[Failure]] = field(default_factory=dict)
    sockets: list[web.WebSocketResponse] = field(default_factory=list)
    connections: int = 0
    limits: SlidingWindows | None = field(default_factory=SlidingWindows)
    """Slack's rate limits, enforced; `limits.refused` counts the 429s sent."""
    refused: list[Call] = field(default_factory=list)
    """Calls answered 429 (not in `calls`: Slack did nothing with them)."""
    _acks: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    _ts: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _ws_url: str = ""

    # test-side helpers -----------------------------------------------------------------

    def fail(self, method: str, status: int = 200, error: str = "internal_error",
             times: int = 1, **headers: str) -> None:
        """Answer the next `times` calls of `method` with an error (e.g. 429 + Retry-After)."""
        self.failures.setdefault(method, []).extend([Failure(status, error, headers)] * times)

    def called(self, method: str) -> list[dict[str, Any]]:
        return [c.args for c in self.calls if c.method == method]

    def posted(self) -> list[dict[str, Any]]:
        return [m for m in self.messages.values()]

    async def wait_posted(self, count: int = 1) -> dict[str, Any]:
        """The `count`-th posted message, once it exists (10 s at most)."""
        await until(lambda: len(self.called("chat.postMessage")) >= count)
        args = self.called("chat.postMessage")[count - 1]
        return self.messages[(args["channel"], args["_ts"])]

    async def wait_call(self, method: str, count: int = 1) -> dict[str, Any]:
        await until(lambda: len(self.called(method)) >= count)
        return self.called(method)[count - 1]

    async def wait_connected(self, count: int = 1) -> None:
        await until(lambda: self.connections >= count and self.sockets)

    async def send_envelope(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        """Push one Socket Mode envelope (`interactive`, `events_api`); return the client's ack."""
        await self.wait_connected()
        envelope_id = str(uuid.uuid4())
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._acks[envelope_id] = future
        await self.sockets[-1].send_str(json.dumps({
            "envelope_id": envelope_id, "type": kind, "payload": body,
            "accepts_response_payload": kind == "interactive", "retry_attempt": 0,
            "retry_reason": "",
        }))
        return await asyncio.wait_for(future, ACK_TIMEOUT)

    # Web API -------------------------------------------------------------------------

    def _over_limit(self, method: str, args: dict[str, Any]) -> int | None:
        """Whole seconds to wait (Retry-After) when the call breaks a rate limit."""
        limits = rate_limits(method, args)
        wait = self.limits.over(limits) if self.limits is not None and limits else None
        return None if wait is None else max(1, math.ceil(wait))

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args = await _read_args(request)
        token = request.headers.get("Authorization", "").removeprefix("Bearer ") or \
            str(args.get("token", ""))
        queued = self.failures.get(method)
        if queued:
            self.calls.append(Call(method, args))
            failure = queued.pop(0)
            return _json({"ok": False, "error": failure.error}, failure.status, failure.headers)
        wait = self._over_limit(method, args)
        if wait is not None:
            self.refused.append(Call(method, args))
            return _json({"ok": False, "error": "ratelimited"}, 429, {"Retry-After": str(wait)})
        self.calls.append(Call(method, args))
        expected = self.app_token if method == "apps.connections.open" else self.bot_token
        if token != expected:
            return _json({"ok": False, "error": "invalid_auth"})
        handler = _METHODS.get(method)
        if handler is None:
            return _json({"ok": False, "error": "unknown_method"})
        problem = blocks_problem(args.get("blocks"))
        if problem:
            return _json({"ok": False, "error": problem})
        return _json(handler(self, args))

    def _auth_test(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "url": "https://acme.slack.com/", "team": "Acme", "user": "askbot",
                "team_id": "T0001", "user_id": "UBOT", "bot_id": "B0001"}

    def _connections_open(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "url": self._ws_url}

    def _post_message(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = str(args["channel"])
        ts = f"{1700000000 + next(self._ts)}.000100"
        args["_ts"] = ts
        message = {"channel": channel, "ts": ts, "text": args.get("text", ""),
                   "blocks": args.get("blocks", []), "thread_ts": args.get("thread_ts")}
        self.messages[(channel, ts)] = message
        return {"ok": True, "channel": channel, "ts": ts, "message": message}

    def _update(self, args: dict[str, Any]) -> dict[str, Any]:
        key = (str(args["channel"]), str(args["ts"]))
        if key not in self.messages:
            return {"ok": False, "error": "message_not_found"}
        self.messages[key].update(text=args.get("text", ""), blocks=args.get("blocks", []))
        return {"ok": True, "channel": key[0], "ts": key[1], "text": args.get("text", "")}

    def _ephemeral(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "message_ts": f"{time.time():.6f}"}

    def _views_open(self, args: dict[str, Any]) -> dict[str, Any]:
        if args.get("trigger_id") == EXPIRED_TRIGGER:
            return {"ok": False, "error": "expired_trigger_id"}
        return {"ok": True, "view": {"id": "V0001", **args["view"]}}

    # Socket Mode ---------------------------------------------------------------------

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_str(json.dumps({"type": "hello", "num_connections": 1,
                                      "connection_info": {"app_id": "A0001"},
                                      "debug_info": {"host": "fake"}}))
        self.sockets.append(ws)
        self.connections += 1
        try:
            async for frame in ws:
                if frame.type != WSMsgType.TEXT:
                    continue
                data = json.loads(frame.data)
                future = self._acks.pop(str(data.get("envelope_id")), None)
                if future is not None and not future.done():
                    future.set_result(data)
        finally:
            self.sockets.remove(ws)
        return ws


_METHODS = {
    "auth.test": FakeSlack._auth_test,
    "apps.connections.open": FakeSlack._connections_open,
    "chat.postMessage": FakeSlack._post_message,
    "chat.update": FakeSlack._update,
    "chat.postEphemeral": FakeSlack._ephemeral,
    "views.open": FakeSlack._views_open,
}


async def _read_args(request: web.Request) -> dict[str, Any]:
    if request.content_type == "application/json":
        data: dict[str, Any] = await request.json()
        return data
    form = {k: str(v) for k, v in (await request.post()).items()}
    out: dict[str, Any] = dict(form)
    for key in ("blocks", "view"):
        if key in out:
            out[key] = json.loads(out[key])
    return out


def _json(body: dict[str, Any], status: int = 200,
          headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(text=json.dumps(body), status=status, headers=headers,
                        content_type="application/json")


@asynccontextmanager
async def fake_slack() -> AsyncIterator[FakeSlack]:
    """A FakeSlack serving on 127.0.0.1 and an ephemeral port for the block's duration."""
    fake = FakeSlack()
    app = web.Application()
    app.router.add_post("/api/{method}", fake._api)
    app.router.add_get("/link", fake._socket)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    fake.base_url = f"http://127.0.0.1:{port}/api/"
    fake._ws_url = f"ws://127.0.0.1:{port}/link"
    try:
        yield fake
    finally:
        for ws in list(fake.sockets):
            await ws.close()
        await runner.cleanup()


# payloads a person's actions produce -----------------------------------------------------

def click_body(message: dict[str, Any], label: str, user: str = "U0123",
               trigger_id: str | None = None) -> dict[str, Any]:
    """block_actions for pressing the button captioned `label` on a posted message."""
    button = next(e for block in message["blocks"] if block["type"] == "actions"
                  for e in block["elements"] if e["text"]["text"] == label)
    body = payload("block_actions")
    body["user"]["id"] = user
    body["channel"]["id"] = message["channel"]
    body["container"].update(message_ts=message["ts"], channel_id=message["channel"])
    body["message"].update(ts=message["ts"], text=message["text"],
                           blocks=copy.deepcopy(message["blocks"]))
    if message.get("thread_ts"):
        body["message"]["thread_ts"] = message["thread_ts"]
    body["actions"][0].update(action_id=button["action_id"], value=button["value"],
                              block_id=next(b["block_id"] for b in message["blocks"]
                                            if b["type"] == "actions"))
    body["actions"][0]["text"]["text"] = label
    if trigger_id is not None:
        body["trigger_id"] = trigger_id
    return body


def modal_body(view: dict[str, Any], text: str, user: str = "U0123") -> dict[str, Any]:
    """view_submission for typing `text` into the modal askbridge opened."""
    body = payload("view_submission")
    body["user"]["id"] = user
    body["view"].update(callback_id=view["callback_id"],
                        private_metadata=view["private_metadata"], blocks=view["blocks"])
    block = view["blocks"][0]
    body["view"]["state"]["values"] = {
        block["block_id"]: {block["element"]["action_id"]: {"type": "plain_text_input",
                                                            "value": text}}}
    return body


def message_body(channel: str, text: str, user: str = "U0123",
                 thread_ts: str | None = None) -> dict[str, Any]:
    """An events_api `message` event callback."""
    body = payload("message_event")
    ts = f"{time.time():.6f}"
    body["event"].update(channel=channel, user=user, text=text, ts=ts, event_ts=ts)
    if thread_ts:
        body["event"]["thread_ts"] = thread_ts
    body["event_id"] = f"Ev{uuid.uuid4().hex[:10]}"
    return body


def signed_headers(body: str, secret: str = SIGNING_SECRET,
                   timestamp: int | None = None) -> dict[str, str]:
    """Headers Slack sends with an HTTP-mode request (timestamp defaults to now)."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    assert signature is not None
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": signature}
