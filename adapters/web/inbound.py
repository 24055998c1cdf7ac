"""What the page and the service worker post (pure): form answers and notification actions as
core events, the broker's reply as an HTTP status."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from adapters.web.ids import USER, surface_for
from bridge import (
    AnswerSubmitted,
    ApprovalDecided,
    ButtonPressed,
    InboundEvent,
    InboundReply,
    QuestionId,
    UserRef,
)

Answer = Annotated[str, Field(max_length=4000)]
"""One option label or free text."""
ACTION = re.compile(r"^answer:(\d)$")


class AnswerBody(BaseModel):
    """`{"answers": {question_id: [label or free text, …]}}`; `answers: null` is Skip."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    answers: dict[str, Annotated[list[Answer], Field(max_length=8)]] | None = Field(max_length=3)


class ActionBody(BaseModel):
    """`{"action": "answer:<option number>"}`, or an approval's `{"action": "approve",
    "hash": "<payload hash>"}`: a notification's action button."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    action: str = Field(max_length=32)
    hash: str | None = Field(default=None, max_length=64, pattern=r"^[0-9a-fA-F]+$")
    """An approval notification's payload hash: Approve counts only for what it showed."""




def event_from(question_id: str, raw: AnswerBody | ActionBody,
               locale: str) -> InboundEvent | None:
    """The page's answers (with the language the person reads the page in, for the reply), or
    a notification's option tap; None for an action that is not one."""
    return _FROM[type(raw)](QuestionId(question_id), raw, locale)


def _answers(question_id: QuestionId, raw: Any, locale: str) -> InboundEvent:
    answers = None if raw.answers is None else {k: list(v) for k, v in raw.answers.items()}
    return AnswerSubmitted(surface=surface_for(), user=UserRef(USER), question_id=question_id,
                           answers=answers, locale=locale)


def _action(question_id: QuestionId, raw: Any, _: str) -> InboundEvent | None:
    if raw.action == "approve" and raw.hash:
        return ApprovalDecided(surface_for(), UserRef(USER), question_id, "approve",
                               authorized=True, payload_hash=raw.hash.lower())
    match = ACTION.match(raw.action)
    if match is None:
        return None
    return ButtonPressed(surface_for(), UserRef(USER), question_id, int(match[1]),
                         authorized=True)


_FROM: dict[type, Callable[[QuestionId, Any, str], InboundEvent | None]] = {
    AnswerBody: _answers, ActionBody: _action}


def reply_response(reply: InboundReply) -> tuple[int, dict[str, Any]]:
    """200 when taken, 409 when the question had already ended, 422 when the form is incomplete."""
    body = {"accepted": reply.accepted, "ended": reply.ended, "message": reply.text or ""}
    if reply.accepted:
        return 200, body
    return (409 if reply.ended else 422), body
