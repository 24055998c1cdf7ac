"""Webhook surfaces and message references: `webhook:<channel>:<conversation>`, the question id."""

from __future__ import annotations

from bridge import MessageRef, QuestionId, SurfaceId, surface_target


def surface_for(channel: str, conversation: str) -> SurfaceId:
    return SurfaceId(f"webhook:{channel}:{conversation}")


def target_of(surface: SurfaceId | str) -> tuple[str, str]:
    """`webhook:sms:+62811` → (`sms`, `+62811`); the conversation may itself hold colons."""
    channel, _, conversation = surface_target(surface).partition(":")
    return channel, conversation


def message_ref(question_id: QuestionId) -> MessageRef:
    """A gateway's reply names the prompt by its question id (`replyTo`)."""
    return MessageRef(question_id)


def parse_ref(ref: MessageRef | str) -> QuestionId:
    return QuestionId(ref)
