"""The web surface: prompts go to connected Control UI pages; answers come back as forms."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import structlog
from starlette.routing import BaseRoute

from bridge import (
    Capabilities,
    Delivery,
    Finalization,
    InboundSink,
    MessageRef,
    Prompt,
    SurfaceId,
)

log = structlog.get_logger("askbridge.web")


class WebAdapter:
    """Delivery to the web surface always succeeds: the question is kept for the UI to show."""

    platform = "web"

    def __init__(self, token: str) -> None:
        self.token = token
        self.sink: InboundSink | None = None
        self.listeners: set[asyncio.Queue[dict[str, Any]]] = set()

    def capabilities(self, surface: SurfaceId) -> Capabilities:
        return Capabilities(buttons=True, edits=True, modals=True, max_len=100_000)

    def routes(self) -> Sequence[BaseRoute]:
        return []

    async def start(self, sink: InboundSink) -> None:
        self.sink = sink

    async def stop(self) -> None:
        for queue in list(self.listeners):
            queue.put_nowait({"type": "bye"})

    def publish(self, event: dict[str, Any]) -> None:
        for queue in list(self.listeners):
            if queue.qsize() < 1000:
                queue.put_nowait(event)

    async def deliver(self, surface: SurfaceId, prompt: Prompt) -> MessageRef | None:
        self.publish({"type": "question", "questionId": prompt.question_id})
        return MessageRef(prompt.question_id)

    async def finalize(self, delivery: Delivery, final: Finalization) -> None:
        self.publish({"type": "resolved", "questionId": delivery.question_id,
                      "kind": final.kind, "status": final.status_line})
