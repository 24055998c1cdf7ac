"""Approvals on Telegram: Approve · Reject · Edit · Allow 1 h under the prompt; Reject asks for
the reason by force-reply; Edit sends the presser a signed link to the web card (or, when the
bridge serves none, asks for the arguments as JSON by force-reply); every decision bound to the
payload the buttons showed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from telegram import ForceReply

from adapters.telegram.ids import APPROVAL_KINDS, ApprovalKind, Callback, approval_data
from adapters.telegram.inbound import Said, Where, may_answer
from adapters.telegram.keyboards import Keyboard, button, inline_keyboard
from bridge import (
    ApprovalDecided,
    ButtonsLayout,
    Prompt,
    QuestionId,
    UserRef,
    caption,
    parse_json,
    tr,
)

__all__ = ["APPROVAL_KINDS", "Ask", "Asked", "answer_event", "decision", "keyboard", "link_message",
           "request", "tap_decision"]
FINGERPRINT = 12
"""Hex characters of the payload hash a button carries (Telegram's callback data is ≤ 64 bytes)."""
EDIT_ROOM = 3800
"""The arguments go into the edit request only while the message stays under Telegram's 4096."""


def fingerprint(prompt: Prompt) -> str:
    assert prompt.approval is not None
    return prompt.approval.payload_hash[:FINGERPRINT]


def keyboard(prompt: Prompt) -> Keyboard:
    """Approve · Reject on the first row, Edit (when the arguments may be edited) · Allow 1 h on
    the second; the labels of the core's three options, in the prompt's language."""
    assert prompt.approval is not None and isinstance(prompt.layout, ButtonsLayout)
    approve, reject, allow = (b.label for b in prompt.layout.buttons[:3])
    mark = fingerprint(prompt)

    def key(label: str, kind: ApprovalKind) -> dict[str, str]:
        return button(label, approval_data(prompt.question_id, kind, mark))

    second = [key(tr(prompt.locale, "Edit"), "edit")] if prompt.approval.editable else []
    return inline_keyboard([[key(approve, "approve"), key(reject, "reject")],
                            [*second, key(allow, "allow")]])


Asked = Literal["reject", "edit"]
"""What a force-reply asks for: a rejection's reason, or the edited arguments."""


@dataclass(frozen=True, slots=True)
class Ask:
    """A force-reply we sent for an approval: what the reply to it is (a reason, arguments)."""

    question_id: QuestionId
    kind: Asked
    fingerprint: str

    @property
    def what(self) -> str:
        """How the store keeps it beside the question id (`Bindings.bind_ask`)."""
        return f"{self.kind} {self.fingerprint}"

    @classmethod
    def of(cls, question_id: QuestionId, what: str) -> Ask | None:
        kind, _, mark = what.partition(" ")
        if kind not in ("reject", "edit") or not mark:
            return None
        return cls(question_id, "reject" if kind == "reject" else "edit", mark)


def decision(where: Where, user_id: int, answerers: list[int], question_id: QuestionId,
             kind: ApprovalKind, fingerprint: str, locale: str, **extra: Any) -> ApprovalDecided:
    """A tap (approve, allow) or a force-reply's answer (reject's reason, edit's arguments)."""
    return ApprovalDecided(
        surface=where.surface, user=UserRef(str(user_id)), approval_id=question_id,
        decision="approve" if kind == "edit" else kind,
        authorized=may_answer(where, user_id, answerers), payload_hash=fingerprint,
        locale=locale, **extra)


def tap_decision(where: Where, user_id: int, answerers: list[int], pressed: Callback,
                 locale: str) -> ApprovalDecided | None:
    """Approve and Allow decide at once; Reject and Edit ask first (None)."""
    if pressed.kind not in ("approve", "allow"):
        return None
    return decision(where, user_id, answerers, pressed.question_id, pressed.kind,
                    pressed.fingerprint, locale)


def request(kind: Asked, prompt: Prompt | None, locale: str) -> tuple[str, ForceReply]:
    """The force-reply message Reject (its reason) or Edit (the arguments) sends."""
    if kind == "reject":
        text = tr(locale, "Why reject it? Reply to this message with your reason; the agent "
                  "reads it.")
        return text, ForceReply(selective=True, input_field_placeholder=tr(locale, "Reason"))
    text = tr(locale, "Reply to this message with the edited arguments, as a JSON object.")
    if prompt is not None and prompt.approval is not None:
        current = json.dumps(prompt.approval.payload, indent=2, ensure_ascii=False)
        if len(current) + len(text) < EDIT_ROOM:
            text = f"{text}\n\n{current}"
    return text, ForceReply(selective=True, input_field_placeholder=caption(
        tr(locale, "Arguments (JSON)"), 64))


def link_message(locale: str, url: str) -> tuple[str, Keyboard]:
    """Edit's answer when the bridge serves answer pages: one URL button to the web card."""
    text = tr(locale, "Edit the arguments on the web. This link is yours alone: whoever opens "
              "it decides as you, until the approval ends.")
    return text, inline_keyboard([[{"text": tr(locale, "Edit on the web"), "url": url}]])


def answer_event(ask: Ask, said: Said, answerers: list[int],
                 locale: str) -> ApprovalDecided | str:
    """A reply to our Reject or Edit request as the decision; for Edit, a sentence when the
    reply is not a JSON object."""
    where, user, text = said.where, said.user_id, said.text.strip()
    if ask.kind == "reject":
        return decision(where, user, answerers, ask.question_id, "reject", ask.fingerprint,
                        locale, reason=text)
    try:
        arguments = parse_json(text)
    except ValueError as exc:
        return tr(locale, "That is not valid JSON ({error}); reply again with the arguments "
                  "as a JSON object.", error=str(exc))
    if not isinstance(arguments, dict):
        return tr(locale, "The arguments must be a JSON object; reply again with one.")
    return decision(where, user, answerers, ask.question_id, "edit", ask.fingerprint, locale,
                    arguments=arguments)
