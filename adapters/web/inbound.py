"""Form answers posted by the page (pure): body → `AnswerSubmitted`, broker reply → HTTP status."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from bridge import AnswerSubmitted, InboundReply, QuestionId, SurfaceId, UserRef

Answer = Annotated[str, Field(max_length=4000)]
"""One option label or free text."""


class AnswerBody(BaseModel):
    """`{"answers": {question_id: [label or free text, …]}}`; `answers: null` is Skip."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    answers: dict[str, Annotated[list[Answer], Field(max_length=8)]] | None = Field(max_length=3)


def to_event(question_id: str, body: AnswerBody, locale: str) -> AnswerSubmitted:
    """The page's answers, with the language the person reads the page in (for the reply)."""
    answers = None if body.answers is None else {k: list(v) for k, v in body.answers.items()}
    return AnswerSubmitted(surface=SurfaceId("web"), user=UserRef("web"),
                           question_id=QuestionId(question_id), answers=answers, locale=locale)


def reply_response(reply: InboundReply) -> tuple[int, dict[str, Any]]:
    """200 when taken, 409 when the question had already ended, 422 when the form is incomplete."""
    body = {"accepted": reply.accepted, "ended": reply.ended, "message": reply.text or ""}
    if reply.accepted:
        return 200, body
    return (409 if reply.ended else 422), body
