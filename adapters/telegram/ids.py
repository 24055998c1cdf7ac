"""Telegram surfaces, message references and callback data: `telegram:<chat>[/<topic>]`,
`<chat>:<message_id>`, `ab:<question_id>:<code>`.

Callback data is the one grammar for every button askbridge puts on Telegram, and never carries
a label. One question's buttons: `<n>` picks option n, `o` asks for own words, `s` is Skip. A
native prompt's: `t<step>.<n>` toggles option n of question `step`, `g<step>` shows that step
(Back/Next), `o<step>` asks for own words for it, `d` is Done. An approval's: `a`, `r`, `e`, `l`
(approve, reject, edit, allow for 1 h) and the payload fingerprint it showed (`a3f9c01d2e4b5`).
The step shown lives in the keyboard itself, so a restart loses nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bridge import ButtonAction, DeliveryError, MessageRef, QuestionId, SurfaceId, surface_target

CALLBACK_PREFIX = "ab"
_ACTION_CODES = {"other": "o", "skip": "s"}
CALLBACK_PATTERN = re.compile(rf"^{CALLBACK_PREFIX}:(q_[a-z0-9]{{1,40}}):"
                       r"(?:(\d{1,2})|([os])|([tgo])(\d)(?:\.(\d))?|(d)|([arel])([0-9a-f]{6,16}))$")
_STEP_KINDS: dict[str, Literal["toggle", "go", "own"]] = {"t": "toggle", "g": "go", "o": "own"}
ApprovalKind = Literal["approve", "reject", "edit", "allow"]
APPROVAL_CODES: dict[ApprovalKind, str] = {"approve": "a", "reject": "r", "edit": "e",
                                           "allow": "l"}
_APPROVAL_KINDS = {code: kind for kind, code in APPROVAL_CODES.items()}
APPROVAL_KINDS = frozenset(APPROVAL_CODES)
CallbackKind = Literal["option", "other", "skip", "toggle", "go", "own", "done", "approve",
                       "reject", "edit", "allow"]


@dataclass(frozen=True, slots=True)
class Callback:
    """A press on one of our buttons, as its callback data says: the question, and what."""

    question_id: QuestionId
    kind: CallbackKind
    step: int = 0
    """The question of a native prompt the press is about (0 for one question's buttons)."""
    option: int = 0
    """The option picked (`option`) or toggled (`toggle`), 0-based."""
    fingerprint: str = ""
    """An approval button's payload fingerprint: the start of the hash of what it showed."""

    @property
    def native(self) -> bool:
        """A press on a native prompt's keyboard (toggle, step, own words, Done)."""
        return self.kind in ("toggle", "go", "own", "done")

    @property
    def action(self) -> ButtonAction:
        """As the core's `ButtonPressed` names it (one question's buttons, and own words)."""
        if self.kind in ("other", "own"):
            return "other"
        return "skip" if self.kind == "skip" else self.option


def parse_callback(data: str) -> Callback | None:
    """`ab:q_…:2` → option 2; `ab:q_…:t1.2` → toggle option 2 of question 1; anything else
    (other bots' buttons, garbage) → None."""
    match = CALLBACK_PATTERN.match(data)
    return None if match is None else callback_of(match)


def callback_of(match: re.Match[str]) -> Callback:
    """The press a match of `CALLBACK_PATTERN` names (python-telegram-bot's handler matches the
    data once and hands the match on)."""
    qid = QuestionId(match.group(1))
    option, single, stepped, step, toggled, done, approval, fingerprint = match.group(
        2, 3, 4, 5, 6, 7, 8, 9)
    if approval is not None:
        return Callback(qid, _APPROVAL_KINDS[approval], fingerprint=fingerprint)
    if option is not None:
        return Callback(qid, "option", option=int(option))
    if single is not None:
        return Callback(qid, "other" if single == "o" else "skip")
    if done is not None:
        return Callback(qid, "done")
    return Callback(qid, _STEP_KINDS[stepped], int(step), int(toggled or 0))


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


def approval_data(question_id: QuestionId, kind: ApprovalKind, fingerprint: str) -> str:
    """`ab:<question_id>:<a|r|e|l><fingerprint>`: an approval button, bound to its payload."""
    return f"{CALLBACK_PREFIX}:{question_id}:{APPROVAL_CODES[kind]}{fingerprint}"
