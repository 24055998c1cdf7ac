"""Event hooks: question events POSTed signed to `[[events]]` URLs, at least once, from an outbox
in the store, so a dead receiver or a restart never loses one and never slows an ask."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import structlog

from bridge.core.approval_reads import approval_view_of
from bridge.core.reads import question_view
from bridge.model.ids import QuestionId
from bridge.runtime.backoff import backoff_delay
from bridge.runtime.config import EventHookConfig
from bridge.runtime.security import SIGNATURE_HEADER, sign
from bridge.runtime.tally import TALLY
from bridge.runtime.tls import client_tls
from bridge.store.protocol import Store
from bridge.store.records import OutboxEvent, iso, now_ms

log = structlog.get_logger("askbridge.events")

TYPES = {"created": "question.created", "delivery": "question.delivered",
         "reminded": "question.reminded", "escalated": "question.escalated",
         "resolved": "question.resolved"}
"""Broker change → event type."""
APPROVAL_TYPES = {"created": "approval.created", "reminded": "approval.reminded",
                  "escalated": "approval.escalated", "resolved": "approval.decided"}
"""Broker change of an approval's backing question → event type (the record under `approval`)."""
MAX_TRIES = 12
"""With the default first delay of 5 s doubling to 15 min: 12 tries over about 80 minutes."""
RETRY_CAP = 900.0
CLAIM_MS = 60_000
"""A try in flight keeps the event from other replicas this long."""
IDLE_POLL = 5.0
"""How often to look for events other replicas queued or whose retry fell due."""


@dataclass(frozen=True, slots=True)
class Hook:
    config: EventHookConfig
    secret: str


class EventHooks:
    """Queues each local broker change for every hook that wants it, and sends the queue."""

    def __init__(self, store: Store, hooks: Sequence[Hook],
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.store = store
        self.hooks = {h.config.url: h for h in hooks}
        self._http = httpx.AsyncClient(transport=transport, trust_env=False, timeout=10.0,
                                       verify=client_tls())
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._runner: asyncio.Task[None] | None = None
        self._sending = asyncio.Semaphore(8)

    def changed(self, event: str, question_id: QuestionId) -> None:
        """Broker listener (local changes only): queue the event in the background."""
        kinds = {TYPES.get(event), APPROVAL_TYPES.get(event)} - {None}
        if any(k in h.config.types for h in self.hooks.values() for k in kinds):
            self._spawn(self._enqueue(event, question_id))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _enqueue(self, event: str, question_id: QuestionId) -> None:
        record = await self.store.get_question(question_id)
        if record is None:
            return
        approval = await self.store.get_approval(question_id) if record.approval else None
        kind = (APPROVAL_TYPES if approval else TYPES).get(event)
        hooks = [h for h in self.hooks.values() if kind in h.config.types]
        if kind is None or not hooks:
            return
        now = now_ms()
        event_id = "ev_" + secrets.token_hex(12)
        subject = ("approval", await approval_view_of(self.store, approval, record)) if approval else (
            "question", question_view(record, await self.store.deliveries(question_id)))
        body = json.dumps({"id": event_id, "type": kind, "at": iso(now), subject[0]: subject[1]},
                          separators=(",", ":"))
        await self.store.enqueue_events(
            [OutboxEvent(event_id, h.config.url, kind, body, 0, now) for h in hooks])
        self._wake.set()

    async def start(self) -> None:
        self._runner = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
            await asyncio.gather(self._runner, return_exceptions=True)
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=5)
        for task in set(self._tasks):
            task.cancel()
        await self._http.aclose()

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                due = await self.store.due_events(now_ms(), 50)
                for event in due:
                    if await self.store.claim_event(event, now_ms() + CLAIM_MS):
                        self._spawn(self._send(event))
                wait = IDLE_POLL
                if not due:
                    nxt = await self.store.next_event_at()
                    if nxt is not None:
                        wait = min(IDLE_POLL, max(0.0, (nxt - now_ms()) / 1000))
            except Exception as exc:  # the store is away: try again later, never crash the loop
                log.warning("events_poll_failed", error=type(exc).__name__)
                wait = IDLE_POLL
            try:  # a timeout scope, not wait_for: on 3.11 that can swallow stop()'s cancel
                async with asyncio.timeout(wait):
                    await self._wake.wait()
            except TimeoutError:
                pass

    async def _send(self, event: OutboxEvent) -> None:
        hook = self.hooks.get(event.url)
        if hook is None:  # the hook left the config: give the event up
            await self.store.event_tried(event, done=False, next_at=None, error="hook removed")
            return
        body = event.body.encode()
        error: str | None = None
        async with self._sending:
            try:
                response = await self._http.post(event.url, content=body, headers={
                    "content-type": "application/json", SIGNATURE_HEADER: sign(hook.secret, body),
                    "X-Askbridge-Event": event.type})
                if response.status_code >= 300:
                    error = f"HTTP {response.status_code}"
            except httpx.HTTPError as exc:
                error = type(exc).__name__
        if error is None:
            await self.store.event_tried(event, done=True, next_at=None, error=None)
            log.info("event_sent", event_id=event.id, type=event.type, tries=event.attempts + 1)
            return
        tries = event.attempts + 1
        next_at = None
        if tries < MAX_TRIES:
            delay = backoff_delay(event.attempts, hook.config.retry_start_seconds, RETRY_CAP)
            next_at = now_ms() + round(delay * 1000)
        await self.store.event_tried(event, done=False, next_at=next_at, error=error)
        TALLY.hook_retries += next_at is not None
        log.warning("event_failed", event_id=event.id, type=event.type, tries=tries, error=error,
                    gave_up=next_at is None)
        self._wake.set()
