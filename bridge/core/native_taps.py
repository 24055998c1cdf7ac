"""Native taps on a prompt: selections kept as partial answers, Done/Submit only when complete."""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from bridge.core.answering import Answering
from bridge.core.reads import Reads, kept
from bridge.model.contract import Question
from bridge.model.ids import SurfaceId
from bridge.model.inbound import (
    AnswerSubmitted,
    InboundReply,
    SelectionChanged,
    StepChanged,
    SubmitPressed,
)
from bridge.store.records import QuestionRecord
from bridge.text.i18n import tr

log = structlog.get_logger("askbridge.inbox")


def ordered(question: Question, given: Sequence[str]) -> list[str]:
    """Labels in option order, then free text as typed; blanks and duplicates dropped."""
    unique = list(dict.fromkeys(a.strip() for a in given if a.strip()))
    labels = [o.label for o in question.options if o.label in unique]
    return labels + [a for a in unique if a not in labels]


def selected(question: Question, before: list[str], options: tuple[int, ...],
             toggle: bool) -> list[str]:
    """The question's answer after a tap: flip, or replace; single-select keeps one option."""
    labels = [o.label for o in question.options]
    chosen = [labels[i] for i in options]
    if toggle:
        have = [a for a in before if a in labels]  # a tap replaces own words, never adds to them
        after = [a for a in have if a not in chosen] + [c for c in chosen if c not in have]
    else:
        after = chosen
    if not question.multi_select:
        after = after[-1:]
    return ordered(question, after)


def first_missing(questions: list[Question], have: dict[str, list[str]]) -> Question | None:
    return next((q for q in questions if not have.get(q.id)), None)


class NativeTaps:
    """The inbox's half for native prompts (selections, submits, per-question own words)."""

    def __init__(self, answering: Answering, reads: Reads) -> None:
        self.answering = answering
        self.reads = reads
        self.store = answering.store

    def _locale(self, record: QuestionRecord, surface: SurfaceId) -> str:
        return self.answering.locale(surface, record)

    async def selection_changed(self, event: SelectionChanged) -> InboundReply:
        async with self.answering.lock(event.question_id):
            record = await self.answering.open_for(event.question_id, event.surface)
            if isinstance(record, InboundReply):
                return record
            if not event.authorized:  # the prompt as stored: undoes what their app shows
                log.info("selection_refused", question_id=record.id, surface=event.surface)
                return InboundReply(handled=True, question_id=record.id,
                                    text=self.answering.not_yours(self._locale(record, event.surface)),
                                    prompt=await self.reads.current_prompt(record, event.surface))
            questions = record.request.questions
            question = questions[event.question] if 0 <= event.question < len(questions) else None
            if question is None or not all(0 <= i < len(question.options)
                                           for i in event.options):
                return InboundReply(handled=True, question_id=record.id, text=tr(
                    self._locale(record, event.surface),
                    "That choice is not valid for this question."))
            before = (await self.store.partial(record.id)).get(question.id, [])
            after = selected(question, before, event.options, event.toggle)
            await self.store.save_partial(record.id, {question.id: after})
            log.info("selection_changed", question_id=record.id, surface=event.surface,
                     chosen=len(after))
            return InboundReply(handled=True, accepted=True, question_id=record.id,
                                prompt=await self.reads.current_prompt(record, event.surface))

    async def step_changed(self, event: StepChanged) -> InboundReply:
        """Back/Next: the prompt as it stands, to show at the step asked for; an ended question
        or a person who may not answer is told so, in the prompt's language."""
        record = await self.answering.open_for(event.question_id, event.surface)
        if isinstance(record, InboundReply):
            return record
        if not event.authorized:
            return InboundReply(handled=True, question_id=record.id,
                                text=self.answering.not_yours(self._locale(record, event.surface)))
        return InboundReply(handled=True, accepted=True, question_id=record.id,
                            prompt=await self.reads.current_prompt(record, event.surface))

    async def submit_pressed(self, event: SubmitPressed) -> InboundReply:
        async with self.answering.lock(event.question_id):
            record = await self.answering.open_for(event.question_id, event.surface)
            if isinstance(record, InboundReply):
                return record
            if not event.authorized:
                return InboundReply(handled=True, question_id=record.id,
                                    text=self.answering.not_yours(self._locale(record, event.surface)))
            questions = list(record.request.questions)
            have = kept(await self.store.partial(record.id))
            missing = first_missing(questions, have)
            if missing is not None:
                return InboundReply(handled=True, question_id=record.id, text=tr(
                    self._locale(record, event.surface), "Answer {header} first.",
                    header=missing.header))
            answers = {q.id: ordered(q, have[q.id]) for q in questions}
            return await self.answering.finish_answered(record, answers, event)

    async def partial_submitted(self, record: QuestionRecord,
                                event: AnswerSubmitted) -> InboundReply:
        """Own words for some questions (a native `Other…`): kept; the end once all answered."""
        assert event.answers is not None
        questions = list(record.request.questions)
        given = {q.id: ordered(q, event.answers.get(q.id, [])) for q in questions}
        given = {k: v for k, v in given.items() if v}
        if not given:
            return InboundReply(handled=True, question_id=record.id, text=tr(
                self._locale(record, event.surface),
                "Nothing was written; type your answer, or choose an option."))
        await self.store.save_partial(record.id, given)
        have = kept(await self.store.partial(record.id))
        missing = first_missing(questions, have)
        if missing is None:
            answers = {q.id: have[q.id] for q in questions}
            return await self.answering.finish_answered(record, answers, event)
        return InboundReply(handled=True, accepted=True, question_id=record.id,
                            text=tr(self._locale(record, event.surface),
                                    "Kept. Now answer {header}.", header=missing.header),
                            prompt=await self.reads.current_prompt(record, event.surface))

