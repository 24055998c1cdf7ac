"""Slack surfaces, message references and action ids: `slack:<channel>[/<thread ts>]`,
`<channel>/<ts>`, `ab:<question_id>:<code>`."""

from __future__ import annotations

from bridge import ButtonAction, MessageRef, QuestionId, SurfaceId, surface_target

ACTION_PREFIX = "ab"
_ACTION_CODES: dict[str, ButtonAction] = {"o": "other", "s": "skip"}


def surface_for(channel: str, thread_ts: str | None = None) -> SurfaceId:
    return SurfaceId(f"slack:{channel}/{thread_ts}" if thread_ts else f"slack:{channel}")


def target_of(surface: SurfaceId | str) -> tuple[str, str | None]:
    """`slack:C0123/1700000000.000100` → (`C0123`, `1700000000.000100`); no thread → None."""
    channel, _, thread = surface_target(surface).partition("/")
    return channel, thread or None


def message_ref(channel: str, ts: str) -> MessageRef:
    return MessageRef(f"{channel}/{ts}")


def parse_ref(ref: MessageRef | str) -> tuple[str, str]:
    channel, _, ts = ref.partition("/")
    return channel, ts


def action_id(question_id: QuestionId | str, action: ButtonAction | str) -> str:
    code = {"other": "o", "skip": "s"}.get(str(action), str(action))
    return f"{ACTION_PREFIX}:{question_id}:{code}"


def parse_action_id(value: str) -> tuple[QuestionId, ButtonAction] | None:
    """The inverse of `action_id` for buttons; None for ids that are not ours or malformed."""
    parts = value.split(":")
    if len(parts) != 3 or parts[0] != ACTION_PREFIX or not parts[1]:
        return None
    code = parts[2]
    if code in _ACTION_CODES:
        return QuestionId(parts[1]), _ACTION_CODES[code]
    if code.isdigit() and len(code) <= 2:
        return QuestionId(parts[1]), int(code)
    return None
