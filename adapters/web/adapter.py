"""The web surface: prompts go to connected Control UI pages; answers come back as forms."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

import structlog
from starlette.routing import BaseRoute

from adapters.web import render
from adapters.web.approvals import ApprovalRoutes
from adapters.web.config import WebConfig
from adapters.web.ids import message_ref
from adapters.web.push import Pusher
from adapters.web.pwa import PwaRoutes
from adapters.web.routes import Core, WebRoutes
from adapters.web.security import WebAuth
from adapters.web.sessions import Sessions
from bridge import (
    DEFAULT_LOCALE,
    AdapterState,
    Capabilities,
    Delivery,
    Finalization,
    InboundSink,
    MessageRef,
    Prompt,
    Queries,
    QuestionId,
    Reminder,
    SurfaceId,
)

log = structlog.get_logger("askbridge.web")
QUEUE_LIMIT = 1000
CLOSED_TTL = 24 * 3600
"""A device that was off keeps hearing of ended questions for a day, so stale cards go away."""


class WebAdapter:
    """Delivery to the web surface always succeeds: the question is kept for the UI to show,
    every connected page hears about it at once over its event stream, and every subscribed
    device gets a Web Push (in the background: a slow push service never slows the ask)."""

    platform = "web"

    def __init__(self, token: str, base_url: str | None, *, config: WebConfig,
                 state: AdapterState) -> None:
        self.config = config
        self.public_url = (self.config.public_url or base_url or "").rstrip("/")
        self.core: Core | None = None
        self.listeners: set[asyncio.Queue[dict[str, Any]]] = set()
        self.locale = config.locale
        self.pusher = Pusher(state, self.config.vapid_subject)
        auth = WebAuth(token, base_url, self.config.public_url,
                       max_age=self.config.session_days * 24 * 3600)
        self._routes = WebRoutes(self, auth, config.locale or DEFAULT_LOCALE,
                                 Sessions(auth, state))
        self._pwa = PwaRoutes(self.pusher, self._routes)
        self._approvals = ApprovalRoutes(self._routes)

    def capabilities(self, surface: SurfaceId) -> Capabilities:
        return Capabilities(buttons=True, edits=True, modals=True, max_len=100_000,
                            locale=self.locale)

    def routes(self) -> Sequence[BaseRoute]:
        return [*self._routes.routes(), *self._pwa.routes(), *self._approvals.routes()]

    async def start(self, sink: InboundSink, queries: Queries) -> None:
        await self.pusher.start()
        self.core = Core(sink, queries)

    async def stop(self) -> None:
        self.publish({"type": "bye"})
        await self.pusher.stop()

    def publish(self, event: dict[str, Any]) -> None:
        for queue in list(self.listeners):
            if queue.qsize() < QUEUE_LIMIT:
                queue.put_nowait(event)

    def question_changed(self, event: str, question_id: QuestionId) -> None:
        """Observer: every change, made here or by another replica, reaches connected pages."""
        kind = render.CHANGE_EVENTS.get(event)
        if kind is not None:
            self.publish(render.change_event(kind, question_id))

    async def deliver(self, surface: SurfaceId, prompt: Prompt) -> MessageRef | None:
        log.debug("web_question_published", question_id=prompt.question_id,
                 pages=len(self.listeners))
        self._push(prompt)
        return message_ref(prompt.question_id)

    async def remind(self, delivery: Delivery, reminder: Reminder) -> MessageRef | None:
        """Open pages show the reminder as a notice; every device gets it as a push."""
        self.publish({"type": "reminder", "questionId": delivery.question_id,
                      "text": reminder.text})
        self._push(reminder.prompt, lead=reminder.text)
        log.debug("web_question_reminded", question_id=delivery.question_id, number=reminder.number)
        return message_ref(delivery.question_id)

    async def finalize(self, delivery: Delivery, final: Finalization) -> None:
        log.debug("web_question_finalized", question_id=delivery.question_id, kind=final.kind)
        self.pusher.send(delivery.question_id, render.final(delivery.question_id),
                         ttl=CLOSED_TTL, urgency="normal")

    def _push(self, prompt: Prompt, lead: str | None = None) -> None:
        url = render.panel_url(self.public_url, prompt.agent, prompt.session)
        ttl = max(0, int(prompt.expires_at.timestamp() - time.time()))
        self.pusher.send(prompt.question_id, render.prompt(prompt, url, lead), ttl=ttl,
                         urgency="high")
