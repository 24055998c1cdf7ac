"""What adapters hand the core: a person's taps, texts and forms, and what to show them back."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from bridge.model.ids import QuestionId, SurfaceId, UserRef
from bridge.model.prompt import ButtonAction, Prompt

HOST_SURFACE = SurfaceId("mcp")
"""Where an answer from the asking MCP host comes from (its form, or its answer-page link)."""


def host_form_answer(question_id: QuestionId, answers: dict[str, list[str]] | None
                     ) -> AnswerSubmitted:
    """What the asking MCP host's own form gave (`answers` None: its decline, Skip), in-process at
    /mcp or sent over HTTP by `askbridge mcp`: surface `mcp`, user `host`."""
    return AnswerSubmitted(surface=HOST_SURFACE, user=UserRef("host"),
                           question_id=question_id, answers=answers)


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """A person pressed a native button on a delivered prompt."""

    surface: SurfaceId
    user: UserRef
    question_id: QuestionId
    action: ButtonAction
    authorized: bool
    """Whether this person may answer on this surface (the adapter knows its answerers)."""


@dataclass(frozen=True, slots=True)
class TextReceived:
    """A person wrote text in a conversation where prompts are delivered."""

    surface: SurfaceId
    user: UserRef
    text: str
    authorized: bool
    reply_to: str | None = None
    """A platform message reference or a question id the text replies to, if the platform says."""
    shown_hash: str | None = None
    """The payload hash (or its first 6+ hex characters) the approval prompt it replies to
    showed, when the platform says which message that was: a decision on arguments an edit has
    since replaced is refused as stale, as a button's is. A `#…` the person wrote wins."""


@dataclass(frozen=True, slots=True)
class AnswerSubmitted:
    """Structured answers from a surface with a form (the web UI): labels or free text per id."""

    surface: SurfaceId
    user: UserRef
    question_id: QuestionId
    answers: dict[str, list[str]] | None
    """None means Skip."""
    authorized: bool = True
    locale: str | None = None
    """The language the person chose on this surface (the web UI's switch); None follows
    the surface's."""
    partial: bool = False
    """Some questions only (a native `Other…` per question): kept with the earlier answers;
    the question ends once every question has an answer."""
    shown_hash: str | None = None
    """For an approval: the payload hash the answered prompt (a native poll) showed."""


@dataclass(frozen=True, slots=True)
class SelectionChanged:
    """A person changed the selection of one question on a native prompt (never final)."""

    surface: SurfaceId
    user: UserRef
    question_id: QuestionId
    question: int
    """The question's 0-based position in the prompt."""
    options: tuple[int, ...]
    authorized: bool
    toggle: bool = False
    """True: flip each of `options` (Telegram toggles); False: `options` is the whole selection."""


@dataclass(frozen=True, slots=True)
class SubmitPressed:
    """`Done`/`Submit` on a native prompt: answer with the selections if every question has one."""

    surface: SurfaceId
    user: UserRef
    question_id: QuestionId
    authorized: bool


@dataclass(frozen=True, slots=True)
class StepChanged:
    """Back/Next on a native prompt walked question by question (Telegram): nothing is stored,
    but only an answerer moves the view everyone sees, and only while the question is open."""

    surface: SurfaceId
    user: UserRef
    question_id: QuestionId
    step: int
    """The question's 0-based position to show."""
    authorized: bool


@dataclass(frozen=True, slots=True)
class ApprovalDecided:
    """A person's decision on an approval from a surface that shows it richly (the web card, a
    modal): approve (perhaps with edited arguments), reject with a reason, or allow for 1 h.
    Taps on the prompt's own buttons and text replies arrive as `ButtonPressed` and
    `TextReceived` like any answer; this carries what those cannot."""

    surface: SurfaceId
    user: UserRef
    approval_id: QuestionId
    decision: Literal["approve", "reject", "allow"]
    authorized: bool
    reason: str = ""
    """Why it was rejected (required for a rejection)."""
    arguments: dict[str, Any] | None = None
    """The arguments as the person edited them; None approves them as they are."""
    payload_hash: str | None = None
    """The SHA-256 of the canonical arguments the person was shown (or its first 12+ hex
    characters); a decision on other arguments is refused."""
    any_arguments: bool = False
    """With `allow`: the rule allows this agent's tool with any arguments for 1 h."""
    locale: str | None = None


@dataclass(frozen=True, slots=True)
class RuleRevoked:
    """A person revoked an "Allow for 1 h" rule from a surface that lists them (the web UI)."""

    surface: SurfaceId
    user: UserRef
    rule_id: str
    authorized: bool = True
    locale: str | None = None


@dataclass(frozen=True, slots=True)
class InboundReply:
    """What the broker tells the adapter to show the person (alert, ephemeral, reply text).

    `handled` is False when the event had nothing to do with any question (leave it alone).
    `accepted` is True when it was taken as (part of) an answer or a skip.
    """

    handled: bool
    accepted: bool = False
    text: str | None = None
    question_id: QuestionId | None = None
    ended: bool = False
    locale: str = "en"
    """The language `text` is in; adapters write their own follow-ups (modals, hints) in it."""
    prompt: Prompt | None = None
    """The prompt as it now stands on the surface (selections shown), to edit it in place."""


class InboundSink(Protocol):
    """Where an adapter hands what people do: taps, texts, forms, selections and submits.

    Skip is a tap (`action="skip"`) or a form with `answers=None`. Every method answers with
    what to show the person; none of them is a read (reads are `Queries`)."""

    async def button_pressed(self, event: ButtonPressed) -> InboundReply: ...

    async def text_received(self, event: TextReceived) -> InboundReply: ...

    async def answers_submitted(self, event: AnswerSubmitted) -> InboundReply: ...

    async def selection_changed(self, event: SelectionChanged) -> InboundReply: ...

    async def submit_pressed(self, event: SubmitPressed) -> InboundReply: ...

    async def step_changed(self, event: StepChanged) -> InboundReply:
        """Accepted with the prompt as it stands, or the reply saying why the view stays."""
        ...

    async def approval_decided(self, event: ApprovalDecided) -> InboundReply:
        """A vote on an approval; `accepted` when counted (`ended` when it decided)."""
        ...

    async def rule_revoked(self, event: RuleRevoked) -> InboundReply:
        """`accepted` when the rule was in force and now is not; else the reply says why."""
        ...


InboundEvent = (ButtonPressed | TextReceived | AnswerSubmitted | SelectionChanged | SubmitPressed
                | StepChanged | ApprovalDecided | RuleRevoked)
"""What an adapter's `inbound.event_from(raw)` makes of a platform event."""

_METHODS: dict[type, Callable[[InboundSink, Any], Awaitable[InboundReply]]] = {
    ButtonPressed: lambda sink, event: sink.button_pressed(event),
    TextReceived: lambda sink, event: sink.text_received(event),
    AnswerSubmitted: lambda sink, event: sink.answers_submitted(event),
    SelectionChanged: lambda sink, event: sink.selection_changed(event),
    SubmitPressed: lambda sink, event: sink.submit_pressed(event),
    StepChanged: lambda sink, event: sink.step_changed(event),
    ApprovalDecided: lambda sink, event: sink.approval_decided(event),
    RuleRevoked: lambda sink, event: sink.rule_revoked(event),
}


async def hand_in(sink: InboundSink, event: InboundEvent) -> InboundReply:
    """One way to hand an inbound event to the broker: the sink's method for its kind."""
    return await _METHODS[type(event)](sink, event)
