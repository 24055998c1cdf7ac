"""Web Push (aes128gcm, VAPID): stored subscriptions; pushes sent in the background, bounded.

What talks to push services (`pushsend`: pywebpush, aiohttp) loads with the first push that has a
device to go to, not at start.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import importlib
import ipaddress
import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import structlog
from py_vapid import Vapid
from pydantic import BaseModel, ConfigDict, Field, field_validator

from adapters.web.render import push_bytes
from adapters.web.vapid import vapid_key
from bridge import AdapterState, backoff

if TYPE_CHECKING:
    from adapters.web.pushsend import PushSender

log = structlog.get_logger("askbridge.web.push")
PREFIX = "push:"
CONCURRENCY = 8
"""Pushes in flight at once, over every question and device."""
RETRIES = 4
RETRY_START = 1.0
RETRY_CAP = 30.0
SEND_SECONDS = 15.0
GONE = {404, 410}
"""The push service forgot this subscription (the person unsubscribed or the browser rotated it)."""


def _b64(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Keys(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    p256dh: str = Field(max_length=200)
    auth: str = Field(max_length=100)

    @field_validator("p256dh")
    @classmethod
    def _point(cls, value: str) -> str:
        try:
            raw = _b64(value)
        except (binascii.Error, ValueError):
            raise ValueError("p256dh must be base64url") from None
        if len(raw) != 65 or raw[0] != 4:
            raise ValueError("p256dh must be an uncompressed P-256 public key")
        return value

    @field_validator("auth")
    @classmethod
    def _secret(cls, value: str) -> str:
        try:
            raw = _b64(value)
        except (binascii.Error, ValueError):
            raise ValueError("auth must be base64url") from None
        if len(raw) != 16:
            raise ValueError("auth must be the 16-byte authentication secret")
        return value


class Subscription(BaseModel):
    """A browser's `PushSubscription.toJSON()`; what is kept is the endpoint and its keys."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    endpoint: str = Field(max_length=2048)
    keys: Keys

    @field_validator("endpoint")
    @classmethod
    def _push_service(cls, value: str) -> str:
        parts = urlsplit(value)
        plain_ok = parts.scheme == "http" and _loopback(parts.hostname or "")
        if not parts.netloc or not (parts.scheme == "https" or plain_ok):
            raise ValueError("the endpoint must be the push service's https:// URL")
        return value

    @property
    def key(self) -> str:
        return subscription_key(self.endpoint)

    @property
    def origin(self) -> str:
        parts = urlsplit(self.endpoint)
        return f"{parts.scheme}://{parts.netloc}"


def subscription_key(endpoint: str) -> str:
    """`push:<sha256 of the endpoint>`: the endpoint is a capability, so not even its key shows it."""
    return PREFIX + hashlib.sha256(endpoint.encode()).hexdigest()


class Pusher:
    """Sends one message to every stored subscription; forgets those the push service lost.

    Sending never blocks the caller: each message is a background task, and at most
    `CONCURRENCY` pushes are in flight, so a slow push service can never slow an ask."""

    def __init__(self, state: AdapterState, subject: str) -> None:
        self.state = state
        self.subject = subject
        self._limit = asyncio.Semaphore(CONCURRENCY)
        self._tasks: set[asyncio.Task[None]] = set()
        self._last: dict[str, asyncio.Task[None]] = {}
        self._closed: set[str] = set()
        self._sender: PushSender | None = None
        self._loading = asyncio.Lock()

    async def start(self) -> None:
        await vapid_key(self.state)  # generated on first start, not on the first push

    async def stop(self) -> None:
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=5)
        for task in set(self._tasks):
            task.cancel()
        if self._sender is not None:
            await self._sender.close()
            self._sender = None

    async def _sending(self) -> PushSender:
        """The sender, loaded on a worker thread the first time (the loop keeps serving)."""
        async with self._loading:
            if self._sender is None:
                module = await asyncio.to_thread(importlib.import_module, "adapters.web.pushsend")
                self._sender = module.PushSender(SEND_SECONDS)
            return self._sender

    # subscriptions ------------------------------------------------------------------------------

    async def subscribe(self, sub: Subscription) -> None:
        value = {"endpoint": sub.endpoint, "keys": sub.keys.model_dump(), "at": int(time.time())}
        await self.state.put(sub.key, json.dumps(value))
        log.info("push_subscribed", subscription=sub.key[len(PREFIX):][:12], service=sub.origin)

    async def unsubscribe(self, endpoint: str) -> bool:
        return await self.state.delete(subscription_key(endpoint))

    async def subscriptions(self) -> list[Subscription]:
        found: list[Subscription] = []
        for _, value in await self.state.items(PREFIX):
            try:
                found.append(Subscription.model_validate_json(value))
            except ValueError:
                continue  # a row this version cannot read is skipped, never fatal
        return found

    # sending ------------------------------------------------------------------------------------

    def send(self, question_id: str, payload: dict[str, Any], ttl: int, urgency: str) -> None:
        """Queue `payload` for every device and return at once. Messages about one question go out
        in order, so a close never overtakes the question it closes."""
        message = Message(question_id, push_bytes(payload).decode(), ttl, urgency,
                          closing=bool(payload.get("closed")))
        if message.closing:
            self._closed.add(question_id)
        task = asyncio.create_task(self._after(self._last.get(question_id), message))
        self._tasks.add(task)
        self._last[question_id] = task
        task.add_done_callback(lambda t: self._done(question_id, t))

    def _done(self, question_id: str, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if self._last.get(question_id) is task:
            del self._last[question_id]
            self._closed.discard(question_id)

    async def _after(self, previous: asyncio.Task[None] | None, message: Message) -> None:
        if previous is not None:
            await asyncio.wait({previous})
        try:
            subs = await self.subscriptions()
            if not subs:  # nobody subscribed: no key to read, nothing to sign
                return
            key = await vapid_key(self.state)
            sender = await self._sending()
            await asyncio.gather(*(self._deliver(sender, s, key, message) for s in subs))
        except Exception:  # a store outage must not leave an unretrieved task error behind
            log.exception("push_failed", question_id=message.question_id)

    async def _deliver(self, sender: PushSender, sub: Subscription, key: Vapid,
                       message: Message) -> None:
        status = await self._attempt(sender, sub, key, message)
        if _retry(status):
            async for _ in backoff(RETRY_START, RETRY_CAP, tries=RETRIES):
                if not message.closing and message.question_id in self._closed:
                    return  # the question ended meanwhile: its notification is moot
                status = await self._attempt(sender, sub, key, message)
                if not _retry(status):
                    break
        if status in GONE:
            await self.state.delete(sub.key)
        log.info("push_sent" if status is not None and status < 300 else "push_not_sent",
                 question_id=message.question_id, status=status, service=sub.origin,
                 forgotten=status in GONE)

    async def _attempt(self, sender: PushSender, sub: Subscription, key: Vapid,
                       message: Message) -> int | None:
        info: dict[str, Any] = {"endpoint": sub.endpoint, "keys": sub.keys.model_dump()}
        async with self._limit:
            return await sender.attempt(info, message.data, key, self.subject, message.ttl,
                                        message.urgency)


@dataclass(frozen=True, slots=True)
class Message:
    """One push: the JSON text (encrypted per device by pywebpush), its TTL and urgency."""

    question_id: str
    data: str
    ttl: int
    urgency: str
    closing: bool


def _retry(status: int | None) -> bool:
    return status is None or status == 429 or status >= 500
