"""One way to hand an inbound event to the broker: the sink's method for the event's kind."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bridge.native import SelectionChanged, SubmitPressed
from bridge.types import (
    AnswerSubmitted,
    ButtonPressed,
    InboundReply,
    InboundSink,
    TextReceived,
)

InboundEvent = ButtonPressed | TextReceived | AnswerSubmitted | SelectionChanged | SubmitPressed
"""What an adapter's `inbound.event_from(raw)` makes of a platform event."""

_METHODS: dict[type, Callable[[InboundSink, Any], Awaitable[InboundReply]]] = {
    ButtonPressed: lambda sink, event: sink.button_pressed(event),
    TextReceived: lambda sink, event: sink.text_received(event),
    AnswerSubmitted: lambda sink, event: sink.answers_submitted(event),
    SelectionChanged: lambda sink, event: sink.selection_changed(event),
    SubmitPressed: lambda sink, event: sink.submit_pressed(event),
}


async def hand_in(sink: InboundSink, event: InboundEvent) -> InboundReply:
    """The broker's reply to `event`, whatever its kind."""
    return await _METHODS[type(event)](sink, event)
