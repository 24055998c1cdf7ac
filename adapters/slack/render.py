"""Prompts and finalizations as Slack Block Kit payloads; ids that survive a restart (pure)."""

from __future__ import annotations

import json
from typing import Any

from bridge import (
    ButtonAction,
    Finalization,
    MessageRef,
    Prompt,
    QuestionId,
    SurfaceId,
    surface_target,
    tr,
)

ACTION_PREFIX = "ab"
OTHER_CALLBACK = "ab_other"
"""The modal's callback_id; its private_metadata carries the question id and surface."""
OTHER_BLOCK = "ab_other_block"
OTHER_INPUT = "ab_other_input"
_ACTION_CODES: dict[str, ButtonAction] = {"o": "other", "s": "skip"}
_MAX_SECTION = 3000
_MAX_FALLBACK = 3900


def escape(text: str) -> str:
    """Slack's mrkdwn control characters: `&`, `<` and `>` must be entities."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def split_target(surface: SurfaceId | str) -> tuple[str, str | None]:
    """`slack:C0123/1700000000.000100` → (`C0123`, `1700000000.000100`); no thread → None."""
    channel, _, thread = surface_target(surface).partition("/")
    return channel, thread or None


def surface_for(channel: str, thread_ts: str | None = None) -> SurfaceId:
    return SurfaceId(f"slack:{channel}/{thread_ts}" if thread_ts else f"slack:{channel}")


def message_ref(channel: str, ts: str) -> MessageRef:
    return MessageRef(f"{channel}/{ts}")


def split_ref(ref: MessageRef | str) -> tuple[str, str]:
    channel, _, ts = ref.partition("/")
    return channel, ts


def action_id(question_id: QuestionId | str, action: ButtonAction) -> str:
    code = {"other": "o", "skip": "s"}.get(str(action), str(action))
    return f"{ACTION_PREFIX}:{question_id}:{code}"


def parse_action_id(value: str) -> tuple[QuestionId, ButtonAction] | None:
    """The inverse of `action_id`; None for ids that are not ours or are malformed."""
    parts = value.split(":")
    if len(parts) != 3 or parts[0] != ACTION_PREFIX or not parts[1]:
        return None
    code = parts[2]
    if code in _ACTION_CODES:
        return QuestionId(parts[1]), _ACTION_CODES[code]
    if code.isdigit() and len(code) <= 2:
        return QuestionId(parts[1]), int(code)
    return None


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _header_section(prompt: Prompt) -> dict[str, Any]:
    text = f"*{escape(prompt.title)}*\n{escape(prompt.body)}"
    return {"type": "section", "text": {"type": "mrkdwn", "text": _clip(text, _MAX_SECTION)}}


def _button(prompt: Prompt, label: str, action: ButtonAction, primary: bool) -> dict[str, Any]:
    element: dict[str, Any] = {
        "type": "button",
        "text": {"type": "plain_text", "text": _clip(label, 75), "emoji": True},
        "action_id": action_id(prompt.question_id, action),
        "value": action_id(prompt.question_id, action),
    }
    if primary:
        element["style"] = "primary"
    return element


def prompt_message(prompt: Prompt) -> dict[str, Any]:
    """chat.postMessage arguments (without channel): buttons when allowed, else numbered text."""
    if prompt.buttons is None:
        return {"text": _clip(escape(prompt.text), _MAX_FALLBACK), "mrkdwn": True}
    elements = [_button(prompt, b.label, b.action, b.primary) for b in prompt.buttons]
    return {
        "text": _clip(f"{prompt.title}: {prompt.body}", _MAX_FALLBACK),
        "blocks": [
            _header_section(prompt),
            {"type": "actions", "block_id": f"ab:{prompt.question_id}", "elements": elements},
        ],
    }


def final_message(final: Finalization) -> dict[str, Any]:
    """chat.update arguments (without channel/ts): the prompt kept, buttons gone, status added."""
    prompt = final.prompt
    status = {"type": "context",
              "elements": [{"type": "mrkdwn", "text": f"*{escape(final.status_line)}*"}]}
    if prompt.native is not None:  # every question, no elements, no controls
        from adapters.slack import native  # native builds on this module's helpers
        text = _clip(f"{prompt.title}: {final.status_line}", _MAX_FALLBACK)
        return {"text": text, "blocks": [*native.blocks(prompt, choices=False), status]}
    if prompt.buttons is None:
        body = _clip(escape(prompt.text), _MAX_SECTION)
        blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": body}}, status]
        text = f"{_clip(escape(prompt.text), _MAX_FALLBACK - 100)}\n\n{final.status_line}"
    else:
        blocks = [_header_section(prompt), status]
        text = _clip(f"{prompt.title}: {final.status_line}", _MAX_FALLBACK)
    return {"text": text, "blocks": blocks}


def other_modal(question_id: QuestionId, surface: SurfaceId, title: str,
                question: str, locale: str) -> dict[str, Any]:
    """The `Other…` modal: one multiline text input; metadata says what it answers."""
    return {
        "type": "modal",
        "callback_id": OTHER_CALLBACK,
        "private_metadata": json.dumps({"q": question_id, "s": surface}),
        "title": {"type": "plain_text", "text": _clip(title, 24)},
        "submit": {"type": "plain_text", "text": tr(locale, "Send")},
        "close": {"type": "plain_text", "text": tr(locale, "Cancel")},
        "blocks": [{
            "type": "input",
            "block_id": OTHER_BLOCK,
            "label": {"type": "plain_text", "text": _clip(question, 2000)},
            "element": {"type": "plain_text_input", "action_id": OTHER_INPUT, "multiline": True,
                        "max_length": 3000},
        }],
    }
