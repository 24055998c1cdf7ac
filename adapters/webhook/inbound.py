"""Inbound webhook bodies (`{conversation, sender, text, replyTo?}`) as core events (pure)."""

from __future__ import annotations

from collections.abc import Collection

from pydantic import BaseModel, ConfigDict, Field

from adapters.webhook.ids import surface_for
from bridge import TextReceived, UserRef


class InboundText(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    conversation: str = Field(min_length=1, max_length=256)
    sender: str = Field(min_length=1, max_length=256)
    text: str = Field(max_length=8000)
    replyTo: str | None = Field(default=None, max_length=256)  # noqa: N815 - the wire name


def event_from(channel: str, raw: InboundText, answerers: Collection[str]) -> TextReceived:
    """The gateway's one kind of event: a text; without `answerers`, any sender may answer."""
    return TextReceived(
        surface=surface_for(channel, raw.conversation),
        user=UserRef(raw.sender),
        text=raw.text,
        authorized=not answerers or raw.sender in answerers,
        reply_to=raw.replyTo,
    )
