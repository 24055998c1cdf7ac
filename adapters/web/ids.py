"""The web surface and its message references: one surface, `web`; a prompt is its question id."""

from __future__ import annotations

from bridge import MessageRef, QuestionId, SurfaceId

WEB = SurfaceId("web")
USER = "web"
"""Whoever holds the UI's token: the UI is one person's."""


def surface_for() -> SurfaceId:
    """The only web surface: every page and device shows the same questions."""
    return WEB


def message_ref(question_id: QuestionId) -> MessageRef:
    """Pages and notifications find a prompt by its question id."""
    return MessageRef(question_id)


def parse_ref(ref: MessageRef | str) -> QuestionId:
    return QuestionId(ref)
