"""The web surface: prompts go to connected Control UI pages; answers come back as forms."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import structlog
from starlette.routing import BaseRoute

from adapters.web.render import CHANGE_EVENTS, change_event
from adapters.web.routes import WebRoutes
from adapters.web.security import WebAuth
from bridge import (
    DEFAULT_LOCALE,
    Capabilities,
    Delivery,
    Finalization,
    InboundSink,
    MessageRef,
    Prompt,
    QuestionId,
    SurfaceId,
)

log = structlog.get_logger("askbridge.web")
QUEUE_LIMIT = 1000


class WebAdapter:
    """Delivery to the web surface always succeeds: the question is kept for the UI to show,
    and every connected page hears about it at once over its event stream."""

    platform = "web"

    def __init__(self, token: str, base_url: str | None = None,
                 locale: str | None = None) -> None:
        self.sink: InboundSink | None = None
        self.listeners: set[asyncio.Queue[dict[str, Any]]] = set()
        self.locale = locale
        self._routes = WebRoutes(self, WebAuth(token, base_url), locale or DEFAULT_LOCALE)

    def capabilities(self, surface: SurfaceId) -> Capabilities:
        return Capabilities(buttons=True, edits=True, modals=True, max_len=100_000,
                            locale=self.locale)

    def routes(self) -> Sequence[BaseRoute]:
        return self._routes.routes()

    async def start(self, sink: InboundSink) -> None:
        self.sink = sink

    async def stop(self) -> None:
        self.publish({"type": "bye"})

    def publish(self, event: dict[str, Any]) -> None:
        for queue in list(self.listeners):
            if queue.qsize() < QUEUE_LIMIT:
                queue.put_nowait(event)

    def question_changed(self, event: str, question_id: QuestionId) -> None:
        """Observer: every change, made here or by another replica, reaches connected pages."""
        kind = CHANGE_EVENTS.get(event)
        if kind is not None:
            self.publish(change_event(kind, question_id))

    async def deliver(self, surface: SurfaceId, prompt: Prompt) -> MessageRef | None:
        log.info("web_question_published", question_id=prompt.question_id,
                 pages=len(self.listeners))
        return MessageRef(prompt.question_id)

    async def finalize(self, delivery: Delivery, final: Finalization) -> None:
        log.info("web_question_finalized", question_id=delivery.question_id, kind=final.kind)
