"""What every inbound path shares: may this surface act on the question, in which language to
answer the person, and ending the question with the one compare-and-set."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from bridge.core.ballots import Ballot
from bridge.core.open_questions import OpenQuestions
from bridge.core.surfaces import Surfaces
from bridge.model.contract import AskResult
from bridge.model.ids import MessageRef, QuestionId, SurfaceId, UserRef
from bridge.model.inbound import (
    HOST_SURFACE,
    AnswerSubmitted,
    ButtonPressed,
    InboundReply,
    SubmitPressed,
    TextReceived,
)
from bridge.store.protocol import Store
from bridge.store.records import AnsweredBy, QuestionRecord
from bridge.text.approval_text import help_text, parse_decision
from bridge.text.i18n import DEFAULT_LOCALE, N_, tr

ENDED = N_("This question has already ended.")
NOT_YOURS = N_("Sorry, only the person this question is for can answer it.")
BY_HOST = N_("An approval is decided by a person on one of its surfaces, never by the agent "
             "that asked for it.")
"""English message ids; every reply is written with `tr` in the surface's locale."""

Resolve = Callable[[QuestionId, AskResult, AnsweredBy | None], Awaitable[bool]]
"""The broker's compare-and-set: True for the one caller whose result became the question's."""
Answered = ButtonPressed | TextReceived | AnswerSubmitted | SubmitPressed
Vote = Callable[[QuestionRecord, Ballot], Awaitable[tuple[str, bool, bool]]]
"""Counts a decision on an approval: (what to tell the person, counted, decided)."""
MayVote = Callable[[QuestionRecord, SurfaceId, UserRef], Awaitable[bool]]
"""Whether a person is a listed approver of the approval behind a question."""
CHOICES = ("approve", "reject", "allow")
"""An approval's backing question's options, in order."""


def accepted_text(record: QuestionRecord, answers: dict[str, list[str]], locale: str) -> str:
    """`Thanks, recorded: Production.` — own words are never echoed back."""
    labels: list[str] = []
    for q in record.request.questions:
        options = {o.label for o in q.options}
        for a in answers.get(q.id, []):
            if a not in options:
                return tr(locale, "Thanks, your answer was recorded.")
            labels.append(a)
    return tr(locale, "Thanks, recorded: {labels}.", labels=", ".join(labels))


class Answering:
    """The checks and the end that taps, texts and forms all go through."""

    def __init__(self, store: Store, open_questions: OpenQuestions, surfaces: Surfaces,
                 resolve: Resolve, vote: Vote | None = None,
                 approver: MayVote | None = None) -> None:
        self.store = store
        self.open = open_questions
        self.surfaces = surfaces
        self.resolve = resolve
        self.vote = vote
        self.approver = approver

    async def may_act(self, record: QuestionRecord, event: Answered) -> bool:
        """An answerer of the surface, or a listed approver of the approval behind `record`."""
        if event.authorized:
            return True
        return (record.approval is not None and self.approver is not None
                and await self.approver(record, event.surface, event.user))

    async def cast(self, record: QuestionRecord, ballot: Ballot) -> InboundReply:
        """A decision on an approval, counted (or refused) and told back."""
        assert self.vote is not None
        text, counted, decided = await self.vote(record, ballot)
        return InboundReply(handled=True, accepted=counted, text=text, question_id=record.id,
                            ended=decided, locale=ballot.locale)

    async def shown(self, event: TextReceived) -> str | None:
        """The payload hash the message a text replies to showed: as the platform says, else
        as recorded for that prompt or reminder (one an edit replaced: that reply is stale)."""
        if event.shown_hash or not event.reply_to:
            return event.shown_hash
        return await self.store.replaced_shown(event.surface, MessageRef(event.reply_to))

    def ballot(self, record: QuestionRecord, result: AskResult, event: Answered,
               locale: str) -> Ballot | None:
        """A tap, form or reply on an approval's prompt as a decision; None for anything that
        is none (a skip, words that decide nothing)."""
        if result.status != "answered":
            return None
        given = (result.answer_map().get("decision") or [""])[0]
        labels = [o.label for o in record.request.questions[0].options]
        shown = event.shown_hash if isinstance(event, AnswerSubmitted | TextReceived) else None
        if given in labels:
            return Ballot(event.surface, event.user, CHOICES[labels.index(given)],  # type: ignore[arg-type]
                          event.authorized, locale, shown_hash=shown)
        parsed = parse_decision(given)
        if parsed is None:
            return None
        return Ballot(event.surface, event.user, parsed.choice, event.authorized, locale,
                      parsed.reason, shown_hash=parsed.quoted or shown)

    def lock(self, question_id: QuestionId) -> asyncio.Lock:
        """Held while a question's partial answers are read and written."""
        return self.open.lock(question_id)

    def locale(self, surface: SurfaceId, record: QuestionRecord | None = None,
               chosen: str | None = None) -> str:
        """What a reply on `surface` is written in: the person's own choice, else the surface's."""
        if chosen:
            return chosen
        return self.surfaces.locale_for(record.agent if record else "", surface)

    def ended(self, surface: SurfaceId, question_id: QuestionId,
              locale: str | None = None) -> InboundReply:
        loc = locale or self.locale(surface)
        return InboundReply(handled=True, text=tr(loc, ENDED), question_id=question_id,
                            ended=True, locale=loc)

    def not_yours(self, locale: str) -> str:
        return tr(locale, NOT_YOURS)

    def not_by_host(self, record: QuestionRecord) -> InboundReply:
        """The asking agent's own host (its form, its card, its host-answer call) never decides
        the agent's approval: that would be the agent approving itself."""
        loc = self.locale(HOST_SURFACE, record)
        return InboundReply(handled=True, question_id=record.id, locale=loc, text=tr(loc, BY_HOST))

    async def open_for(
        self, question_id: QuestionId, surface: SurfaceId, chosen: str | None = None
    ) -> QuestionRecord | InboundReply:
        """The pending question `surface` may act on, or the reply saying why not."""
        if not await self.open.sent_to(question_id, surface):
            if await self.store.get_question(question_id) is not None:
                return InboundReply(handled=False, question_id=question_id)  # not sent here
            return self.ended(surface, question_id, chosen)
        record = await self.open.get(question_id)
        if record is None:  # a late tap: say so in the language its prompt was in
            ended = await self.store.get_question(question_id)
            return self.ended(surface, question_id, self.locale(surface, ended, chosen))
        return record

    async def finish(self, record: QuestionRecord, result: AskResult, event: Answered, text: str,
                     locale: str = DEFAULT_LOCALE) -> InboundReply:
        """End the question with `result`; `text` to the person if this was the end, else the
        notice that it had already ended. On an approval's question `result` is a vote."""
        if record.approval is not None and self.vote is not None:
            ballot = self.ballot(record, result, event, locale)
            if ballot is None:
                return InboundReply(handled=True, text=help_text(locale), question_id=record.id,
                                    locale=locale)
            return await self.cast(record, ballot)
        if await self.resolve(record.id, result, AnsweredBy(event.surface, event.user)):
            return InboundReply(handled=True, accepted=True, text=text, question_id=record.id,
                                ended=True, locale=locale)
        return self.ended(event.surface, record.id, locale)

    async def finish_answered(self, record: QuestionRecord, answers: dict[str, list[str]],
                              event: AnswerSubmitted | SubmitPressed) -> InboundReply:
        loc = self.locale(event.surface, record, getattr(event, "locale", None))
        return await self.finish(record, AskResult.answered(answers), event,
                                 accepted_text(record, answers, loc), loc)
