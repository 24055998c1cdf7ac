"""Discord surfaces, message references and custom ids: `discord:<channel>`,
`<channel>:<message>`, `ab:<question_id>:<code>`."""

from __future__ import annotations

from bridge import (
    ButtonAction,
    DeliveryError,
    MessageRef,
    QuestionId,
    SurfaceId,
    surface_target,
)

CUSTOM_ID_PREFIX = "ab"
MODAL_ACTION = "m"
_CODES: dict[str, str] = {"other": "o", "skip": "s"}


def surface_for(channel_id: int | str) -> SurfaceId:
    return SurfaceId(f"discord:{channel_id}")


def channel_of(surface: SurfaceId) -> int:
    """The channel id of `discord:<channel id>`; a `DeliveryError` saying how to write it."""
    target = surface_target(surface)
    if not target.isdigit():
        raise DeliveryError(f"{surface} is not a Discord channel; use discord:<channel id> "
                            "(Developer Mode → right-click the channel → Copy Channel ID)")
    return int(target)


def message_ref(channel_id: int | str, message_id: int | str) -> MessageRef:
    """`<channel_id>:<message_id>`: what the broker stores and a reply's reference matches."""
    return MessageRef(f"{channel_id}:{message_id}")


def parse_ref(ref: str) -> tuple[int, int] | None:
    channel, _, message = ref.partition(":")
    if not (channel.isdigit() and message.isdigit()):
        return None
    return int(channel), int(message)


def custom_id(question_id: QuestionId, action: ButtonAction | str) -> str:
    """`ab:<question_id>:<index|o|s|m|…>`: everything needed to act on a click after a restart."""
    code = str(action) if isinstance(action, int) else _CODES.get(action, action)
    return f"{CUSTOM_ID_PREFIX}:{question_id}:{code}"
