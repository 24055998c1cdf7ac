"""Inbound webhook bodies (`{conversation, sender, text, replyTo?}`) as core events (pure)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from bridge import SurfaceId, TextReceived, UserRef


class InboundText(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    conversation: str = Field(min_length=1, max_length=256)
    sender: str = Field(min_length=1, max_length=256)
    text: str = Field(max_length=8000)
    replyTo: str | None = Field(default=None, max_length=256)  # noqa: N815 - the wire name


def surface_for(channel: str, conversation: str) -> SurfaceId:
    return SurfaceId(f"webhook:{channel}:{conversation}")


def to_event(channel: str, body: InboundText, answerers: list[str]) -> TextReceived:
    allowed = not answerers or body.sender in answerers
    return TextReceived(
        surface=surface_for(channel, body.conversation),
        user=UserRef(body.sender),
        text=body.text,
        authorized=allowed,
        reply_to=body.replyTo,
    )
