"""A fake Discord (REST + gateway websocket) on 127.0.0.1 for driving the real discord.py."""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import WSMsgType, web

API = "/api/v10"
HELLO, HEARTBEAT, IDENTIFY, RESUME, RECONNECT, HEARTBEAT_ACK = 10, 1, 2, 6, 7, 11


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    # discord.py parses JSON only when Content-Type is exactly `application/json`.
    return web.Response(body=json.dumps(data).encode(), status=status,
                        headers={"Content-Type": "application/json", **(headers or {})})


BUCKET_LIMIT, BUCKET_SECONDS = 5, 5.0
"""Messages sent (and, separately, edited) per channel, as Discord's headers report them."""


@dataclass
class Bucket:
    """One route's rate limit bucket for one channel: Discord resets it whole when it expires."""

    name: str
    reset_at: float = 0.0
    used: int = 0

    def take(self) -> tuple[dict[str, str], float | None]:
        """The X-RateLimit headers for a call, and the seconds to wait when it is over."""
        now = time.monotonic()
        if now >= self.reset_at:
            self.reset_at, self.used = now + BUCKET_SECONDS, 0
        over = self.used >= BUCKET_LIMIT
        self.used += 0 if over else 1
        headers = {"X-RateLimit-Bucket": self.name, "X-RateLimit-Limit": str(BUCKET_LIMIT),
                   "X-RateLimit-Remaining": str(BUCKET_LIMIT - self.used),
                   "X-RateLimit-Reset-After": f"{self.reset_at - now:.3f}"}
        return headers, (self.reset_at - now if over else None)


def _too_many(headers: dict[str, str], wait: float) -> web.Response:
    return _json({"message": "You are being rate limited.", "retry_after": round(wait, 3),
                  "global": False}, 429, {**headers, "Via": "1.1 google", "X-RateLimit-Scope":
                                          "user", "Retry-After": str(math.ceil(wait))})


def _user(user_id: int, name: str, bot: bool = False) -> dict[str, Any]:
    return {"id": str(user_id), "username": name, "discriminator": "0", "avatar": None,
            "global_name": name, "bot": bot}


MAX_ROWS, MAX_ROW_BUTTONS, MAX_OPTIONS, MAX_CUSTOM_ID = 5, 5, 25, 100


def components_problem(rows: Any) -> str | None:
    """Why Discord would refuse these message components (Invalid Form Body), or None."""
    if not isinstance(rows, list):
        return None
    if len(rows) > MAX_ROWS:
        return "components: Must be 5 or fewer in length."
    for row in rows:
        items = row.get("components", [])
        selects = [c for c in items if c.get("type") == 3]
        if (selects and len(items) > 1) or len(items) > MAX_ROW_BUTTONS:
            return "components: an action row holds one select menu or up to five buttons"
        for item in items:
            if len(str(item.get("custom_id", ""))) > MAX_CUSTOM_ID:
                return "custom_id: Must be 100 or fewer in length."
            if item.get("type") == 2 and len(str(item.get("label", ""))) > 80:
                return "label: Must be 80 or fewer in length."
        for select in selects:
            options = select.get("options", [])
            if not 1 <= len(options) <= MAX_OPTIONS:
                return "options: Must be between 1 and 25 in length."
            low, high = select.get("min_values", 1), select.get("max_values", 1)
            if not 0 <= low <= high <= len(options):
                return "max_values: Must be at most the number of options."
    return None


def _invalid(problem: str) -> web.Response:
    return _json({"message": "Invalid Form Body", "code": 50035,
                  "errors": {"components": {"_errors": [{"code": "BASE_TYPE_BAD",
                                                         "message": problem}]}}}, 400)


@dataclass
class Callback:
    """What the bot answered to one interaction (`POST /interactions/{id}/{token}/callback`)."""

    interaction_id: str
    type: int
    data: dict[str, Any]


@dataclass
class FakeDiscord:
    token: str = "fake-bot-token"
    bot_id: int = 1001
    app_id: int = 1001
    guild_id: int = 2001
    channel_id: int = 3001
    thread_id: int = 3002
    dm_channel_id: int = 3003
    forbidden_channel_id: int = 3004
    dm_user_id: int = 4009
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    posts: list[dict[str, Any]] = field(default_factory=list)
    """Every message body the bot POSTed (also 429-answered attempts), in order."""
    edits: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    callbacks: dict[str, Callback] = field(default_factory=dict)
    answered: list[str] = field(default_factory=list)
    """The id of every interaction answered, once per answer (a duplicate answered again)."""
    followups: list[dict[str, Any]] = field(default_factory=list)
    identifies: list[dict[str, Any]] = field(default_factory=list)
    resumes: int = 0
    rate_limit_next: int = 0
    """Answer this many coming message POSTs with 429 (retry_after 0.05 s) before accepting."""
    buckets: dict[tuple[str, str], Bucket] = field(default_factory=dict)
    """Per (route, channel): the fake enforces them, so discord.py must pace by its headers."""
    limits: bool = True
    """False: the buckets are never emptied (for runs that test something else in bulk)."""
    refused: int = 0
    """429s answered because a bucket was empty (not counting `rate_limit_next`)."""
    unknown: list[str] = field(default_factory=list)
    message_content_allowed: bool = True
    """False: like a portal where the privileged Message Content intent is off (close 4014)."""
    port: int = 0
    _ws: web.WebSocketResponse | None = None
    _seq: int = 0
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(5_000_000))
    _runner: web.AppRunner | None = None

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}{API}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    def snowflake(self) -> str:
        return str(next(self._ids))

    async def start(self) -> FakeDiscord:
        app = web.Application()
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get(f"{API}/users/@me", self._me)
        app.router.add_get(f"{API}/oauth2/applications/@me", self._application)
        app.router.add_post(f"{API}/channels/{{channel}}/messages", self._send)
        app.router.add_patch(f"{API}/channels/{{channel}}/messages/{{message}}", self._edit)
        app.router.add_post(f"{API}/interactions/{{id}}/{{token}}/callback", self._callback)
        app.router.add_post(f"{API}/webhooks/{{app}}/{{token}}", self._followup)
        app.router.add_route("*", "/{tail:.*}", self._unknown)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # REST -------------------------------------------------------------------------------

    def _authorized(self, request: web.Request) -> bool:
        return request.headers.get("Authorization") == f"Bot {self.token}"

    async def _me(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return _json({"message": "401: Unauthorized", "code": 0}, 401)
        return _json({**_user(self.bot_id, "askbot", bot=True), "verified": True, "flags": 0,
                      "mfa_enabled": False})

    async def _application(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return _json({"message": "401: Unauthorized", "code": 0}, 401)
        return _json({"id": str(self.app_id), "name": "askbridge", "description": "",
                      "icon": None, "bot_public": False, "bot_require_code_grant": False,
                      "owner": _user(4001, "owner"), "verify_key": "00", "flags": 0,
                      "team": None, "rpc_origins": []})

    def _bucket(self, route: str, channel: str) -> Bucket:
        bucket = self.buckets.get((route, channel))
        if bucket is None or not self.limits:
            bucket = self.buckets[(route, channel)] = Bucket(f"fake-{route}")
        return bucket

    def _known(self, channel: str) -> bool:
        return int(channel) in (self.channel_id, self.thread_id, self.dm_channel_id)

    async def _send(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return _json({"message": "401: Unauthorized", "code": 0}, 401)
        channel, body = request.match_info["channel"], await request.json()
        self.posts.append({"channel": channel, **body})
        if int(channel) == self.forbidden_channel_id:
            return _json({"message": "Missing Access", "code": 50001}, 403)
        if not self._known(channel):
            return _json({"message": "Unknown Channel", "code": 10003}, 404)
        problem = components_problem(body.get("components"))
        if problem:
            return _invalid(problem)
        if self.rate_limit_next > 0:
            self.rate_limit_next -= 1
            return _json({"message": "You are being rate limited.", "retry_after": 0.05,
                          "global": False}, 429,
                         {"Via": "1.1 google", "Retry-After": "1", "X-RateLimit-Scope": "user",
                          "X-RateLimit-Bucket": "fake-bucket", "X-RateLimit-Limit": "5",
                          "X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": "0.05"})
        headers, wait = self._bucket("send", channel).take()
        if wait is not None:
            self.refused += 1
            return _too_many(headers, wait)
        message = self.message(channel, self.snowflake(), _user(self.bot_id, "askbot", True),
                               body.get("content", ""), body.get("components", []))
        if "message_reference" in body:  # a reply: Discord fills in where it points
            ref = body["message_reference"]
            message["type"] = 19
            message["message_reference"] = {
                "type": 0, "message_id": str(ref["message_id"]), "channel_id": channel,
                **({"guild_id": message["guild_id"]} if "guild_id" in message else {})}
            message["referenced_message"] = self.messages.get(str(ref["message_id"]))
        self.messages[message["id"]] = message
        return _json(message, headers=headers)

    async def _edit(self, request: web.Request) -> web.Response:
        message = self.messages.get(request.match_info["message"])
        if message is None:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        body = await request.json()
        problem = components_problem(body.get("components"))
        if problem:
            return _invalid(problem)
        headers, wait = self._bucket("edit", request.match_info["channel"]).take()
        if wait is not None:
            self.refused += 1
            return _too_many(headers, wait)
        self.edits.append((message["id"], body))
        message.update({k: body[k] for k in ("content", "components") if k in body})
        message["edited_timestamp"] = datetime.now(UTC).isoformat()
        return _json(message, headers=headers)

    async def _callback(self, request: web.Request) -> web.Response:
        body = await request.json()
        iid = request.match_info["id"]
        self.callbacks[iid] = Callback(iid, body["type"], body.get("data") or {})
        self.answered.append(iid)
        return _json({"interaction": {"id": iid, "type": 3, "response_message_loading": False,
                                      "response_message_ephemeral": True},
                      "resource": {"type": body["type"]}})

    async def _followup(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.followups.append(body)
        return _json(self.message(str(self.channel_id), self.snowflake(),
                                  _user(self.bot_id, "askbot", True), body.get("content", "")))

    async def _unknown(self, request: web.Request) -> web.Response:
        self.unknown.append(f"{request.method} {request.path}")
        return _json({"message": "404: Not Found", "code": 0}, 404)

    # gateway ----------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_json({"op": HELLO, "d": {"heartbeat_interval": 45000}, "s": None, "t": None})
        async for frame in ws:
            if frame.type is not WSMsgType.TEXT:
                continue
            message = json.loads(frame.data)
            if message["op"] == HEARTBEAT:
                await ws.send_json({"op": HEARTBEAT_ACK, "d": None})
            elif message["op"] == IDENTIFY:
                self.identifies.append(message["d"])
                if message["d"]["intents"] & 1 << 15 and not self.message_content_allowed:
                    await ws.close(code=4014, message=b"Disallowed intent(s).")
                    break
                self._ws = ws
                await self._ready(ws)
            elif message["op"] == RESUME:
                self.resumes += 1
                self._ws = ws
                await self.dispatch("RESUMED", {})
        if self._ws is ws:
            self._ws = None
        return ws

    async def _ready(self, ws: web.WebSocketResponse) -> None:
        await self.dispatch("READY", {
            "v": 10, "user": _user(self.bot_id, "askbot", bot=True), "guilds": [
                {"id": str(self.guild_id), "unavailable": True}],
            "session_id": "fake-session", "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.app_id), "flags": 0}, "private_channels": [],
            "relationships": [], "presences": [], "shard": [0, 1]})
        await self.dispatch("GUILD_CREATE", self.guild())

    def guild(self) -> dict[str, Any]:
        text = {"id": str(self.channel_id), "type": 0, "name": "decisions", "position": 0,
                "guild_id": str(self.guild_id), "permission_overwrites": [], "nsfw": False,
                "parent_id": None}
        thread = {"id": str(self.thread_id), "type": 11, "name": "deploy", "guild_id":
                  str(self.guild_id), "parent_id": str(self.channel_id), "owner_id": "4001",
                  "thread_metadata": {"archived": False, "auto_archive_duration": 1440,
                                      "archive_timestamp": "2024-01-01T00:00:00+00:00",
                                      "locked": False}, "member_count": 1,
                  "message_count": 0}
        return {"id": str(self.guild_id), "name": "Fake Guild", "unavailable": False,
                "owner_id": "4001", "channels": [text], "threads": [thread], "members": [],
                "roles": [], "emojis": [], "stickers": [], "features": [], "member_count": 2,
                "large": False, "voice_states": [], "presences": [], "stage_instances": [],
                "guild_scheduled_events": [], "soundboard_sounds": [], "icon": None,
                "afk_timeout": 300, "verification_level": 0, "default_message_notifications": 0,
                "explicit_content_filter": 0, "mfa_level": 0, "premium_tier": 0,
                "preferred_locale": "en-US", "nsfw_level": 0, "system_channel_flags": 0}

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send one DISPATCH to the connected bot (waits up to 10 s for a session)."""
        for _ in range(500):
            if self._ws is not None and not self._ws.closed:
                break
            await asyncio.sleep(0.02)
        assert self._ws is not None, "discord.py never connected to the fake gateway"
        self._seq += 1
        await self._ws.send_json({"op": 0, "t": event, "s": self._seq, "d": data})

    async def reconnect(self) -> None:
        """Op 7: Discord asks the bot to reconnect and resume."""
        assert self._ws is not None
        await self._ws.send_json({"op": RECONNECT, "d": None})

    async def drop(self, code: int = 4000) -> None:
        """The gateway connection breaks (4000: unknown error, resumable)."""
        assert self._ws is not None
        ws, self._ws = self._ws, None
        await ws.close(code=code, message=b"fake gateway drop")

    # building events --------------------------------------------------------------------

    def message(self, channel: str, message_id: str, author: dict[str, Any], content: str,
                components: list[Any] | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": message_id, "channel_id": channel, "author": author, "content": content,
            "timestamp": datetime.now(UTC).isoformat(), "edited_timestamp": None, "tts": False,
            "mention_everyone": False, "mentions": [], "mention_roles": [], "attachments": [],
            "embeds": [], "pinned": False, "type": 0, "flags": 0,
            "components": components or []}
        if int(channel) != self.dm_channel_id:
            data["guild_id"] = str(self.guild_id)
        return data

    def _where(self, channel: int, user_id: int) -> dict[str, Any]:
        user = _user(user_id, f"person{user_id}")
        if channel == self.dm_channel_id:
            return {"channel_id": str(channel), "user": user,
                    "channel": {"id": str(channel), "type": 1, "recipients": [user]}}
        return {"channel_id": str(channel), "guild_id": str(self.guild_id),
                "channel": {"id": str(channel), "type": 0, "guild_id": str(self.guild_id),
                            "name": "decisions", "position": 0, "permission_overwrites": []},
                "member": {"user": user, "roles": [], "joined_at": "2024-01-01T00:00:00+00:00",
                           "deaf": False, "mute": False, "flags": 0, "permissions": "2048",
                           "pending": False}}

    async def interact(self, kind: int, data: dict[str, Any], user_id: int, channel: int,
                       message: dict[str, Any] | None = None) -> Callback:
        """Dispatch INTERACTION_CREATE and wait (10 s at most) for the bot's callback."""
        iid = self.snowflake()
        payload = {"id": iid, "application_id": str(self.app_id), "type": kind, "data": data,
                   "token": f"itoken-{iid}", "version": 1, "attachment_size_limit": 8388608,
                   "app_permissions": "0", "locale": "en-US", "entitlements": [],
                   "authorizing_integration_owners": {}, "context": 0,
                   **self._where(channel, user_id)}
        if message is not None:
            payload["message"] = message
        await self.dispatch("INTERACTION_CREATE", payload)
        for _ in range(500):
            if iid in self.callbacks:
                return self.callbacks[iid]
            await asyncio.sleep(0.02)
        raise AssertionError(f"the bot never answered interaction {iid}")

    async def click(self, message: dict[str, Any], custom_id: str, user_id: int) -> Callback:
        return await self.interact(3, {"custom_id": custom_id, "component_type": 2}, user_id,
                                   int(message["channel_id"]), message)

    async def submit_modal(self, custom_id: str, value: str, user_id: int,
                           channel: int) -> Callback:
        data = {"custom_id": custom_id, "components": [
            {"type": 18, "id": 1, "component": {"type": 4, "id": 2, "custom_id": "ab:answer",
                                                "value": value}}]}
        return await self.interact(5, data, user_id, channel)

    async def user_message(self, channel: int, user_id: int, content: str,
                           reply_to: dict[str, Any] | None = None) -> dict[str, Any]:
        """A person writes in a channel (optionally a Discord reply to a message)."""
        where = self._where(channel, user_id)
        message = self.message(str(channel), self.snowflake(),
                               where.get("user") or where["member"]["user"], content)
        if "member" in where:
            message["member"] = {k: v for k, v in where["member"].items() if k != "user"}
        if reply_to is not None:
            message.update(type=19, referenced_message=reply_to, message_reference={
                "message_id": reply_to["id"], "channel_id": str(channel)})
        await self.dispatch("MESSAGE_CREATE", message)
        return message

    def in_channel(self, channel: int) -> list[dict[str, Any]]:
        """Messages the bot posted in a channel, oldest first."""
        return [m for m in self.messages.values() if m["channel_id"] == str(channel)
                and m["author"]["id"] == str(self.bot_id)]
