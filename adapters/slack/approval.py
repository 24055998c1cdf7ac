"""Approvals on Slack: Approve · Reject · Edit · Allow 1 h; Reject opens a modal for the reason,
Edit one with the arguments as JSON (a refusal shows inline in the modal). Action ids carry the
payload fingerprint the message showed (`ab:<question_id>:<a|r|e|l><fingerprint>`). Pure."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from adapters.slack.ids import ACTION_PREFIX
from bridge import ButtonsLayout, Prompt, QuestionId, SurfaceId, caption, tr

FINGERPRINT = 12
CALLBACK = "ab_approval"
"""The Reject / Edit modal's callback_id; private_metadata says which and for what payload."""
BLOCK, INPUT = "ab_approval_block", "ab_approval_input"
Kind = Literal["approve", "reject", "edit", "allow"]
_CODES: dict[Kind, str] = {"approve": "a", "reject": "r", "edit": "e", "allow": "l"}
_KINDS = {code: kind for kind, code in _CODES.items()}
_ID = re.compile(rf"^{ACTION_PREFIX}:(q_[a-z0-9]{{1,64}}):([arel])([0-9a-f]{{6,16}})$")


def action_id(question_id: str, kind: Kind, fingerprint: str) -> str:
    return f"{ACTION_PREFIX}:{question_id}:{_CODES[kind]}{fingerprint}"


def parse(value: str) -> tuple[QuestionId, Kind, str] | None:
    match = _ID.match(value)
    return None if match is None else (QuestionId(match[1]), _KINDS[match[2]], match[3])


def elements(prompt: Prompt) -> list[dict[str, Any]]:
    """Approve (primary), Reject (danger), Edit (when editable), Allow 1 h."""
    assert prompt.approval is not None and isinstance(prompt.layout, ButtonsLayout)
    approve, reject, allow = (b.label for b in prompt.layout.buttons[:3])
    mark = prompt.approval.payload_hash[:FINGERPRINT]

    def button(label: str, kind: Kind, style: str | None = None) -> dict[str, Any]:
        found: dict[str, Any] = {"type": "button", "text": {"type": "plain_text",
                                                            "text": caption(label, 75)},
                                 "action_id": action_id(prompt.question_id, kind, mark),
                                 "value": kind}
        if style:
            found["style"] = style
        return found

    row = [button(approve, "approve", "primary"), button(reject, "reject", "danger")]
    if prompt.approval.editable:
        row.append(button(tr(prompt.locale, "Edit"), "edit"))
    return [*row, button(allow, "allow")]


def modal(kind: Kind, prompt: Prompt, surface: SurfaceId, fingerprint: str) -> dict[str, Any]:
    locale, approval = prompt.locale, prompt.approval
    assert approval is not None
    reject = kind == "reject"
    element: dict[str, Any] = {"type": "plain_text_input", "action_id": INPUT, "multiline": True,
                               "max_length": 1000 if reject else 3000}
    if not reject:
        current = json.dumps(approval.payload, indent=2, ensure_ascii=False)
        if len(current) <= 3000:
            element["initial_value"] = current
    label = tr(locale, "Reason") if reject else tr(locale, "Arguments (JSON)")
    return {
        "type": "modal", "callback_id": CALLBACK,
        "private_metadata": json.dumps({"q": prompt.question_id, "s": surface, "k": kind,
                                        "f": fingerprint}),
        "title": {"type": "plain_text", "text": caption(
            tr(locale, "Reject") if reject else tr(locale, "Edit"), 24)},
        "submit": {"type": "plain_text", "text": caption(
            tr(locale, "Reject") if reject else tr(locale, "Approve edited"), 24)},
        "close": {"type": "plain_text", "text": tr(locale, "Cancel")},
        "blocks": [{"type": "section", "text": {"type": "plain_text",
                                                "text": caption(approval.action, 3000)}},
                   {"type": "input", "block_id": BLOCK,
                    "label": {"type": "plain_text", "text": label}, "element": element}],
    }
