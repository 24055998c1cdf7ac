"""Telegram surfaces, message references and callback data: `telegram:<chat>[/<topic>]`,
`<chat>:<message_id>`, `ab:<question_id>:<code>`."""

from __future__ import annotations

from bridge import ButtonAction, DeliveryError, MessageRef, QuestionId, SurfaceId, surface_target

CALLBACK_PREFIX = "ab"
_ACTION_CODES = {"other": "o", "skip": "s"}


def surface_for(chat_id: int | str, thread_id: int | None = None) -> SurfaceId:
    """`telegram:<chat>`, or `telegram:<chat>/<thread>` for a forum topic."""
    return SurfaceId(f"telegram:{chat_id}" + (f"/{thread_id}" if thread_id else ""))


def chat_of(surface: SurfaceId) -> tuple[int | str, int | None]:
    """`telegram:<chat>[/<topic>]` as (chat, topic); a `DeliveryError` saying how to write it."""
    try:
        return parse_target(surface_target(surface))
    except ValueError:
        raise DeliveryError(
            f"{surface} is not a Telegram chat; write telegram:<chat_id> or "
            "telegram:<chat_id>/<topic_id>") from None


def parse_target(target: str) -> tuple[int | str, int | None]:
    """`-100123/7` → (-100123, 7); `@channel` stays a string; raises ValueError when malformed."""
    chat, _, thread = target.partition("/")
    if not chat:
        raise ValueError("no chat id")
    chat_id: int | str = chat if chat.startswith("@") else int(chat)
    return chat_id, (int(thread) if thread else None)


def message_ref(chat_id: int | str, message_id: int) -> MessageRef:
    """The reference deliver() returns and inbound replies quote: `<chat>:<message_id>`."""
    return MessageRef(f"{chat_id}:{message_id}")


def parse_ref(ref: str) -> tuple[int | str, int]:
    chat, _, message_id = ref.rpartition(":")
    return (chat if chat.startswith("@") else int(chat)), int(message_id)


def callback_data(question_id: QuestionId, action: ButtonAction | str) -> str:
    """`ab:<question_id>:<index|o|s|code>`: everything a tap needs, even after a restart
    (< 64 bytes)."""
    code = str(action) if isinstance(action, int) else _ACTION_CODES.get(action, action)
    return f"{CALLBACK_PREFIX}:{question_id}:{code}"
