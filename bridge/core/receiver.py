"""Inbound taps, text and form answers from adapters, checked and turned into resolutions."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping

import structlog

from bridge.core.answering import Answering, accepted_text
from bridge.core.ballots import Ballot
from bridge.core.native_taps import NativeTaps
from bridge.core.reads import kept
from bridge.model.contract import AskResult, Question
from bridge.model.ids import MessageRef, QuestionId, SurfaceId
from bridge.model.inbound import (
    AnswerSubmitted,
    ApprovalDecided,
    ButtonPressed,
    InboundReply,
    RuleRevoked,
    SelectionChanged,
    StepChanged,
    SubmitPressed,
    TextReceived,
)
from bridge.store.records import QuestionRecord
from bridge.text.approval_text import help_text, parse_decision
from bridge.text.i18n import N_, tr
from bridge.text.parsing import Parsed, Skip, parse_reply

log = structlog.get_logger("askbridge.inbox")

SEVERAL = N_(
    "Several questions are waiting here. Reply to the prompt you mean (use your app's reply "
    "feature) so I know which one you are answering."
)
SKIPPED = N_("Skipped.")
"""English message ids; every reply is written with `tr` in the surface's locale."""


def _missing_text(questions: list[Question], have: dict[str, list[str]], parsed: Parsed,
                  locale: str) -> str:
    lines: list[str] = []
    if parsed.unplaced:
        lines.append(parsed.unplaced)
    for q in questions:
        if q.id in parsed.problems:
            lines.append(f"{q.header}: {parsed.problems[q.id]}")
    if len(questions) > 1:
        still = [f"{n}. {q.header}" for n, q in enumerate(questions, start=1) if q.id not in have]
        if have:
            lines.append(tr(locale, "Kept {kept} of {count} answers.", kept=len(have),
                            count=len(questions)))
        if still:
            lines.append(tr(locale, "Still needed: {questions}. Reply with lines like `2: 1`.",
                            questions=", ".join(still)))
    return "\n".join(lines)


class Receiver:
    """The `InboundSink` adapters call: each event checked, parsed, and resolved through the broker."""

    def __init__(self, answering: Answering, native: NativeTaps,
                 reminders_in_flight: Mapping[SurfaceId, int],
                 revoke: Revoke | None = None) -> None:
        """`reminders_in_flight`: reminders sent per surface but not yet recorded (a reply to
        one may arrive before its record); `revoke` ends an "Allow for 1 h" rule."""
        self.revoke = revoke
        self.answering = answering
        self.native = native
        self.store = answering.store
        self.open = answering.open
        self.reminders_in_flight = reminders_in_flight

    async def selection_changed(self, event: SelectionChanged) -> InboundReply:
        return await self.native.selection_changed(event)

    async def submit_pressed(self, event: SubmitPressed) -> InboundReply:
        return await self.native.submit_pressed(event)

    async def step_changed(self, event: StepChanged) -> InboundReply:
        return await self.native.step_changed(event)

    async def button_pressed(self, event: ButtonPressed) -> InboundReply:
        record = await self.answering.open_for(event.question_id, event.surface)
        if isinstance(record, InboundReply):
            return record
        loc = self.answering.locale(event.surface, record)
        if not await self.answering.may_act(record, event):
            log.info("answer_refused", question_id=record.id, surface=event.surface)
            return InboundReply(handled=True, text=self.answering.not_yours(loc), question_id=record.id,
                                locale=loc)
        if event.action == "other":
            return InboundReply(handled=True, accepted=True, question_id=record.id, locale=loc,
                                text=tr(loc, "Reply with your own answer."))
        if event.action == "skip":
            return await self.answering.finish(record, AskResult.no_answer("skipped"), event,
                                      tr(loc, SKIPPED), loc)
        question = record.request.questions[0]
        if not (isinstance(event.action, int) and 0 <= event.action < len(question.options)):
            return InboundReply(handled=True, question_id=record.id, locale=loc,
                                text=tr(loc, "That button is not valid for this question."))
        answers = {question.id: [question.options[event.action].label]}
        return await self.answering.finish(record, AskResult.answered(answers), event,
                                  accepted_text(record, answers, loc), loc)

    async def answers_submitted(self, event: AnswerSubmitted) -> InboundReply:
        async with self.answering.lock(event.question_id):
            return await self._apply_form(event)

    async def host_answered(self, event: AnswerSubmitted) -> InboundReply:
        """An answer from the asking agent's own MCP host (its form, `answers` None for its
        Skip): no prompt was delivered there, so only the question's being open is checked,
        then everything any form answer goes through. Never an approval's (`not_by_host`)."""
        async with self.answering.lock(event.question_id):
            record = await self.answering.open.get(event.question_id)
            if record is None:  # it ended first (a remote answer won): the late form is ignored
                return InboundReply(handled=True, question_id=event.question_id)
            if record.approval is not None:
                return self.answering.not_by_host(record)
            return await self._judge_form(record, event)

    async def _apply_form(self, event: AnswerSubmitted) -> InboundReply:
        record = await self.answering.open_for(event.question_id, event.surface, event.locale)
        if isinstance(record, InboundReply):
            return record
        return await self._judge_form(record, event)

    async def _judge_form(self, record: QuestionRecord, event: AnswerSubmitted) -> InboundReply:
        loc = self.answering.locale(event.surface, record, event.locale)
        if not await self.answering.may_act(record, event):
            return InboundReply(handled=True, text=self.answering.not_yours(loc), question_id=record.id,
                                locale=loc)
        if event.answers is None:
            return await self.answering.finish(record, AskResult.no_answer("skipped"), event,
                                      tr(loc, SKIPPED), loc)
        if event.partial:
            return await self.native.partial_submitted(record, event)
        problem = _check_answers(list(record.request.questions), event.answers, loc)
        if problem:
            return InboundReply(handled=True, text=problem, question_id=record.id, locale=loc)
        answers = _canonical(list(record.request.questions), event.answers)
        return await self.answering.finish(record, AskResult.answered(answers), event,
                                  accepted_text(record, answers, loc), loc)

    async def text_received(self, event: TextReceived) -> InboundReply:
        target = await self._target(event)
        if isinstance(target, InboundReply):
            return target
        if not await self.answering.may_act(target, event):
            log.info("answer_refused", question_id=target.id, surface=event.surface)
            loc = self.answering.locale(event.surface, target)
            return InboundReply(handled=True, text=self.answering.not_yours(loc), question_id=target.id,
                                locale=loc)
        async with self.answering.lock(target.id):
            return await self._apply_text(target.id, event)

    async def _target(self, event: TextReceived) -> QuestionRecord | InboundReply:
        found = await self._find_target(event)
        if isinstance(found, InboundReply) and not found.handled and await self._settling(event):
            found = await self._find_target(event)  # a prompt was still being recorded
        return found

    async def _settling(self, event: TextReceived, patience: float = 3.0) -> bool:
        """Wait (briefly) while a prompt or reminder on this surface is sent but not recorded.

        A person can reply within milliseconds of the platform showing the message, before the
        broker has stored its reference; such a reply must not be dropped.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + patience
        waited = False
        while event.surface in self.reminders_in_flight or await self.store.pending_on_surface(
                event.surface, "sending", limit=1):
            if loop.time() > deadline:
                break
            waited = True
            await asyncio.sleep(0.05)
        return waited

    async def _find_target(self, event: TextReceived) -> QuestionRecord | InboundReply:
        if event.reply_to:
            return await self._replied(event)
        candidates = await self.store.pending_on_surface(event.surface, limit=2)
        if not candidates:
            return InboundReply(handled=False)
        if len(candidates) > 1:
            loc = self.answering.locale(event.surface, candidates[0])
            return InboundReply(handled=True, text=tr(loc, SEVERAL), locale=loc)
        return candidates[0]

    async def _replied(self, event: TextReceived) -> QuestionRecord | InboundReply:
        """A reply binds to the prompt it replies to; a reply to anything else is left alone."""
        assert event.reply_to is not None
        question_id: QuestionId | None = None
        delivery = await self.store.find_delivery(event.surface, MessageRef(event.reply_to))
        if delivery is not None:
            question_id = delivery.question_id
        elif event.reply_to.startswith("q_"):  # only a question this surface was sent
            if await self.open.sent_to(QuestionId(event.reply_to), event.surface):
                question_id = QuestionId(event.reply_to)
        record = await self.store.get_question(question_id) if question_id else None
        if record is None:
            return InboundReply(handled=False)
        if not record.pending:
            loc = self.answering.locale(event.surface, record)
            return self.answering.ended(event.surface, record.id, loc)
        return record

    async def _apply_text(self, question_id: QuestionId, event: TextReceived) -> InboundReply:
        record = await self.open.get(question_id)
        if record is None:
            ended = await self.store.get_question(question_id)
            loc = self.answering.locale(event.surface, ended)
            return self.answering.ended(event.surface, question_id, loc)
        loc = self.answering.locale(event.surface, record)
        if record.approval is not None and self.answering.vote is not None:
            return await self._decision_text(record, event, loc)
        questions = list(record.request.questions)
        have = kept(await self.store.partial(record.id))
        outcome = parse_reply(questions, event.text, have, locale=loc)
        if isinstance(outcome, Skip):
            return await self.answering.finish(record, AskResult.no_answer("skipped"), event,
                                      tr(loc, SKIPPED), loc)
        merged = {**have, **outcome.answers}
        if all(q.id in merged for q in questions) and not outcome.problems:
            answers = {q.id: merged[q.id] for q in questions}
            return await self.answering.finish(record, AskResult.answered(answers), event,
                                      accepted_text(record, answers, loc), loc)
        if outcome.answers:
            await self.store.save_partial(record.id, outcome.answers)
        log.info("reply_incomplete", question_id=record.id, surface=event.surface,
                 kept=len(merged), problems=len(outcome.problems))
        return InboundReply(handled=True, accepted=bool(outcome.answers), question_id=record.id,
                            text=_missing_text(questions, merged, outcome, loc), locale=loc)

    async def _decision_text(self, record: QuestionRecord, event: TextReceived,
                             loc: str) -> InboundReply:
        """`approve`, `reject <reason>`, `3`…: a vote; anything else gets the short help."""
        parsed = parse_decision(event.text)
        if parsed is None:
            return InboundReply(handled=True, text=help_text(loc), question_id=record.id,
                                locale=loc)
        return await self.answering.cast(record, Ballot(
            event.surface, event.user, parsed.choice, event.authorized, loc, parsed.reason,
            shown_hash=parsed.quoted or await self.answering.shown(event)))

    async def rule_revoked(self, event: RuleRevoked) -> InboundReply:
        return await rule_revoked(self, event)

    async def approval_decided(self, event: ApprovalDecided) -> InboundReply:
        """A decision from a rich surface (the web card, a modal): edits, reasons, any-args."""
        record = await self.answering.open_for(event.approval_id, event.surface, event.locale)
        if isinstance(record, InboundReply):
            return record
        loc = self.answering.locale(event.surface, record, event.locale)
        if record.approval is None:
            return InboundReply(handled=True, question_id=record.id, locale=loc, text=tr(
                loc, "This is a question, not an approval; answer it with its options."))
        return await self.answering.cast(record, Ballot(
            event.surface, event.user, event.decision, event.authorized, loc, event.reason,
            event.arguments, event.payload_hash, event.any_arguments))


Revoke = Callable[[str, str], Awaitable[bool]]
"""Ends a rule in force (its id, who did it): True when it was in force."""


async def rule_revoked(receiver: Receiver, event: RuleRevoked) -> InboundReply:
    loc = receiver.answering.locale(event.surface, None, event.locale)
    if not event.authorized:
        return InboundReply(handled=True, text=receiver.answering.not_yours(loc), locale=loc)
    done = receiver.revoke is not None and await receiver.revoke(
        event.rule_id, f"{event.surface}:{event.user}")
    text = tr(loc, "Revoked: that call is asked for again.") if done else tr(
        loc, "That rule is not in force (revoked or expired already).")
    return InboundReply(handled=True, accepted=done, text=text, locale=loc)


def _check_answers(questions: list[Question], answers: dict[str, list[str]],
                   locale: str) -> str | None:
    for q in questions:
        given = [a.strip() for a in answers.get(q.id, []) if a.strip()]
        if not given:
            return tr(locale, "{header}: choose an option or write your own answer.",
                      header=q.header)
        if not q.multi_select and len(given) > 1:
            return tr(locale, "{header}: choose just one answer.", header=q.header)
    return None


def _canonical(questions: list[Question], answers: dict[str, list[str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for q in questions:
        given = list(dict.fromkeys(a.strip() for a in answers[q.id] if a.strip()))
        labels = [o.label for o in q.options if o.label in given]
        free = [a for a in given if a not in labels]
        out[q.id] = labels + free
    return out
