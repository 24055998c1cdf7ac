"""Approvals on Discord: Approve · Reject · Edit · Allow 1 h; Reject opens a modal for the reason,
Edit one with the arguments as JSON. Every custom id carries the payload fingerprint the message
showed (`ab:<question_id>:<a|r|e|l|R|E><fingerprint>`), so a decision counts only for it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

import discord

from adapters.discord.ids import CUSTOM_ID_PREFIX, surface_for
from bridge import (
    DEFAULT_LOCALE,
    ApprovalDecided,
    ButtonsLayout,
    Prompt,
    QuestionId,
    UserRef,
    caption,
    parse_json,
    tr,
)

FINGERPRINT = 12
Kind = Literal["approve", "reject", "edit", "allow", "reason", "arguments"]
"""Buttons (approve, reject, edit, allow) and the modals' submits (reason, arguments)."""
_CODES: dict[Kind, str] = {"approve": "a", "reject": "r", "edit": "e", "allow": "l",
                           "reason": "R", "arguments": "E"}
_KINDS = {code: kind for kind, code in _CODES.items()}
_ID = re.compile(rf"^{CUSTOM_ID_PREFIX}:(q_[a-z0-9]{{1,64}}):([arelRE])([0-9a-f]{{6,16}})$")
INPUT = "ab:approval"
"""The custom id of a modal's one text input."""
EDIT_MAX = 4000
"""Discord's limit for a text input's value."""
_BUTTON, _ROW, _PRIMARY, _SECONDARY, _DANGER = 2, 1, 1, 2, 4


@dataclass(frozen=True, slots=True)
class Tap:
    question_id: QuestionId
    kind: Kind
    fingerprint: str


def approval_id(question_id: QuestionId | str, kind: Kind, fingerprint: str) -> str:
    return f"{CUSTOM_ID_PREFIX}:{question_id}:{_CODES[kind]}{fingerprint}"


def parse(custom_id: str) -> Tap | None:
    match = _ID.match(custom_id)
    if match is None:
        return None
    return Tap(QuestionId(match[1]), _KINDS[match[2]], match[3])


def components(prompt: Prompt) -> list[dict[str, Any]]:
    """One row: Approve (primary), Reject (danger), Edit (when editable), Allow 1 h."""
    assert prompt.approval is not None and isinstance(prompt.layout, ButtonsLayout)
    approve, reject, allow = (b.label for b in prompt.layout.buttons[:3])
    mark = prompt.approval.payload_hash[:FINGERPRINT]

    def button(label: str, kind: Kind, style: int) -> dict[str, Any]:
        return {"type": _BUTTON, "style": style, "label": caption(label, 80),
                "custom_id": approval_id(prompt.question_id, kind, mark)}

    row = [button(approve, "approve", _PRIMARY), button(reject, "reject", _DANGER)]
    if prompt.approval.editable:
        row.append(button(tr(prompt.locale, "Edit"), "edit", _SECONDARY))
    row.append(button(allow, "allow", _SECONDARY))
    return [{"type": _ROW, "components": row}]


def modal(tap: Tap, prompt: Prompt | None, locale: str) -> discord.ui.Modal:
    """Reject: a reason (required). Edit: the arguments as JSON, filled in with the current ones."""
    reject = tap.kind == "reject"
    title = tr(locale, "Reject: your reason") if reject else tr(locale, "Edit the arguments")
    field: discord.ui.TextInput[discord.ui.Modal] = discord.ui.TextInput(
        custom_id=INPUT, style=discord.TextStyle.paragraph, required=True,
        max_length=1000 if reject else EDIT_MAX)
    if not reject and prompt is not None and prompt.approval is not None:
        current = json.dumps(prompt.approval.payload, indent=2, ensure_ascii=False)
        if len(current) <= EDIT_MAX:
            field.default = current
    label = tr(locale, "Reason") if reject else tr(locale, "Arguments (JSON)")
    about = (prompt.approval.action if prompt is not None and prompt.approval is not None
             else None)
    result = discord.ui.Modal(title=caption(title, 45), timeout=None, custom_id=approval_id(
        tap.question_id, "reason" if reject else "arguments", tap.fingerprint))
    result.add_item(discord.ui.Label(text=caption(label, 45), component=field,
                                     description=caption(about, 100) if about else None))
    return result


def decision(tap: Tap, channel_id: int, user_id: int, authorized: bool, locale: str | None,
             text: str | None = None) -> ApprovalDecided | str:
    """A button (approve, allow) or a modal's text (reason, arguments) as the decision; for
    arguments that are not a JSON object, the sentence saying so. `locale` None: the surface's."""
    extra: dict[str, Any] = {}
    words = locale or DEFAULT_LOCALE
    choice: Literal["approve", "reject", "allow"] = "allow" if tap.kind == "allow" else "approve"
    if tap.kind == "reason":
        choice, extra = "reject", {"reason": (text or "").strip()}
    elif tap.kind == "arguments":
        try:
            arguments = parse_json(text or "")
        except ValueError as exc:
            return tr(words, "That is not valid JSON ({error}); press Edit again and send the "
                      "arguments as a JSON object.", error=str(exc))
        if not isinstance(arguments, dict):
            return tr(words, "The arguments must be a JSON object; press Edit again.")
        extra = {"arguments": arguments}
    return ApprovalDecided(surface=surface_for(channel_id), user=UserRef(str(user_id)),
                           approval_id=tap.question_id, decision=choice, authorized=authorized,
                           payload_hash=tap.fingerprint, locale=locale, **extra)


def typed(data: Any) -> str | None:
    """The one text input's value in a modal submit's `data`."""
    def walk(items: Any) -> str | None:
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict):
                continue
            if item.get("custom_id") == INPUT and isinstance(item.get("value"), str):
                return str(item["value"])
            found = walk(item.get("components")) or walk([item.get("component")])
            if found is not None:
                return found
        return None
    return walk(data.get("components")) if isinstance(data, dict) else None
