"""Inbound taps, text and form answers from adapters, checked and turned into resolutions."""

from __future__ import annotations

import asyncio
from typing import Any

import structlog

from bridge.broker import Broker
from bridge.contract import AskResult, Question
from bridge.native import SelectionChanged, SubmitPressed
from bridge.parsing import Parsed, Skip, parse_reply
from bridge.selections import NativeTaps, kept
from bridge.store.records import AnsweredBy, QuestionRecord, SessionInfo, iso
from bridge.types import (
    AgentName,
    AnswerSubmitted,
    ButtonPressed,
    InboundReply,
    MessageRef,
    Prompt,
    QuestionId,
    SessionKey,
    SurfaceId,
    TextReceived,
)
from bridge.views import question_view, question_views

log = structlog.get_logger("askbridge.inbox")

ENDED = "This question has already ended."
NOT_YOURS = "Sorry, only the person this question is for can answer it."
SEVERAL = (
    "Several questions are waiting here. Reply to the prompt you mean (use your app's reply "
    "feature) so I know which one you are answering."
)


def _accepted_text(record: QuestionRecord, answers: dict[str, list[str]]) -> str:
    labels: list[str] = []
    for q in record.request.questions:
        options = {o.label for o in q.options}
        for a in answers.get(q.id, []):
            if a not in options:
                return "Thanks, your answer was recorded."
            labels.append(a)
    return f"Thanks, recorded: {', '.join(labels)}."


def _missing_text(questions: list[Question], have: dict[str, list[str]], parsed: Parsed) -> str:
    lines: list[str] = []
    if parsed.unplaced:
        lines.append(parsed.unplaced)
    for q in questions:
        if q.id in parsed.problems:
            lines.append(f"{q.header}: {parsed.problems[q.id]}")
    if len(questions) > 1:
        still = [f"{n}. {q.header}" for n, q in enumerate(questions, start=1) if q.id not in have]
        if have:
            lines.append(f"Kept {len(have)} of {len(questions)} answers.")
        if still:
            lines.append("Still needed: " + ", ".join(still) + ". Reply with lines like `2: 1`.")
    return "\n".join(lines)


class Inbox:
    """The `InboundSink` adapters call; one instance wraps the broker."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self.store = broker.store
        self.native = NativeTaps(self)

    async def selection_changed(self, event: SelectionChanged) -> InboundReply:
        return await self.native.selection_changed(event)

    async def submit_pressed(self, event: SubmitPressed) -> InboundReply:
        return await self.native.submit_pressed(event)

    def not_yours(self) -> str:
        return NOT_YOURS

    async def finish_answered(self, record: QuestionRecord, answers: dict[str, list[str]],
                              event: AnswerSubmitted | SubmitPressed) -> InboundReply:
        return await self._finish(record, AskResult.answered(answers), event,
                                  _accepted_text(record, answers))

    async def open_for(
        self, question_id: QuestionId, surface: SurfaceId
    ) -> QuestionRecord | InboundReply:
        """The pending question `surface` may act on, or the reply saying why not."""
        if not await self.broker.sent_to(question_id, surface):
            if await self.store.get_question(question_id) is not None:
                return InboundReply(handled=False, question_id=question_id)  # not sent here
            return InboundReply(handled=True, text=ENDED, question_id=question_id, ended=True)
        record = await self.broker.open_question(question_id)
        if record is None:
            return InboundReply(handled=True, text=ENDED, question_id=question_id, ended=True)
        return record

    async def button_pressed(self, event: ButtonPressed) -> InboundReply:
        record = await self.open_for(event.question_id, event.surface)
        if isinstance(record, InboundReply):
            return record
        if not event.authorized:
            log.info("answer_refused", question_id=record.id, surface=event.surface)
            return InboundReply(handled=True, text=NOT_YOURS, question_id=record.id)
        if event.action == "other":
            return InboundReply(handled=True, accepted=True, question_id=record.id,
                                text="Reply with your own answer.")
        if event.action == "skip":
            return await self._finish(record, AskResult.no_answer("skipped"), event, "Skipped.")
        question = record.request.questions[0]
        if not (isinstance(event.action, int) and 0 <= event.action < len(question.options)):
            return InboundReply(handled=True, text="That button is not valid for this question.",
                                question_id=record.id)
        answers = {question.id: [question.options[event.action].label]}
        return await self._finish(record, AskResult.answered(answers), event,
                                  _accepted_text(record, answers))

    async def answers_submitted(self, event: AnswerSubmitted) -> InboundReply:
        async with self.broker.lock(event.question_id):
            return await self._apply_form(event)

    async def _apply_form(self, event: AnswerSubmitted) -> InboundReply:
        record = await self.open_for(event.question_id, event.surface)
        if isinstance(record, InboundReply):
            return record
        if not event.authorized:
            return InboundReply(handled=True, text=NOT_YOURS, question_id=record.id)
        if event.answers is None:
            return await self._finish(record, AskResult.no_answer("skipped"), event, "Skipped.")
        if event.partial:
            return await self.native.partial_submitted(record, event)
        problem = _check_answers(list(record.request.questions), event.answers)
        if problem:
            return InboundReply(handled=True, text=problem, question_id=record.id)
        answers = _canonical(list(record.request.questions), event.answers)
        return await self._finish(record, AskResult.answered(answers), event,
                                  _accepted_text(record, answers))

    async def text_received(self, event: TextReceived) -> InboundReply:
        target = await self._target(event)
        if isinstance(target, InboundReply):
            return target
        if not event.authorized:
            log.info("answer_refused", question_id=target.id, surface=event.surface)
            return InboundReply(handled=True, text=NOT_YOURS, question_id=target.id)
        async with self.broker.lock(target.id):
            return await self._apply_text(target.id, event)

    async def _target(self, event: TextReceived) -> QuestionRecord | InboundReply:
        found = await self._find_target(event)
        if isinstance(found, InboundReply) and not found.handled and await self._settling(event):
            found = await self._find_target(event)  # a prompt was still being recorded
        return found

    async def _settling(self, event: TextReceived, patience: float = 3.0) -> bool:
        """Wait (briefly) while a prompt on this surface is sent but not yet recorded.

        A person can reply within milliseconds of the platform showing the prompt, before the
        broker has stored the message reference; such a reply must not be dropped.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + patience
        waited = False
        while await self.store.pending_on_surface(event.surface, "sending"):
            if loop.time() > deadline:
                break
            waited = True
            await asyncio.sleep(0.05)
        return waited

    async def _find_target(self, event: TextReceived) -> QuestionRecord | InboundReply:
        if event.reply_to:
            return await self._replied(event)
        candidates = await self.store.pending_on_surface(event.surface)
        if not candidates:
            return InboundReply(handled=False)
        if len(candidates) > 1:
            return InboundReply(handled=True, text=SEVERAL)
        return candidates[0]

    async def _replied(self, event: TextReceived) -> QuestionRecord | InboundReply:
        """A reply binds to the prompt it replies to; a reply to anything else is left alone."""
        assert event.reply_to is not None
        question_id: QuestionId | None = None
        delivery = await self.store.find_delivery(event.surface, MessageRef(event.reply_to))
        if delivery is not None:
            question_id = delivery.question_id
        elif event.reply_to.startswith("q_"):  # only a question this surface was sent
            if await self.broker.sent_to(QuestionId(event.reply_to), event.surface):
                question_id = QuestionId(event.reply_to)
        record = await self.store.get_question(question_id) if question_id else None
        if record is None:
            return InboundReply(handled=False)
        if not record.pending:
            return InboundReply(handled=True, text=ENDED, question_id=record.id, ended=True)
        return record

    async def _apply_text(self, question_id: QuestionId, event: TextReceived) -> InboundReply:
        record = await self.broker.open_question(question_id)
        if record is None:
            return InboundReply(handled=True, text=ENDED, question_id=question_id, ended=True)
        questions = list(record.request.questions)
        have = kept(await self.store.partial(record.id))
        outcome = parse_reply(questions, event.text, have)
        if isinstance(outcome, Skip):
            return await self._finish(record, AskResult.no_answer("skipped"), event, "Skipped.")
        merged = {**have, **outcome.answers}
        if all(q.id in merged for q in questions) and not outcome.problems:
            answers = {q.id: merged[q.id] for q in questions}
            return await self._finish(record, AskResult.answered(answers), event,
                                      _accepted_text(record, answers))
        if outcome.answers:
            await self.store.save_partial(record.id, outcome.answers)
        log.info("reply_incomplete", question_id=record.id, surface=event.surface,
                 kept=len(merged), problems=len(outcome.problems))
        return InboundReply(handled=True, accepted=bool(outcome.answers), question_id=record.id,
                            text=_missing_text(questions, merged, outcome))

    async def _finish(
        self,
        record: QuestionRecord,
        result: AskResult,
        event: ButtonPressed | TextReceived | AnswerSubmitted | SubmitPressed,
        text: str,
    ) -> InboundReply:
        by = AnsweredBy(event.surface, event.user)
        if await self.broker.resolve(record.id, result, by):
            return InboundReply(handled=True, accepted=True, text=text, question_id=record.id,
                                ended=True)
        return InboundReply(handled=True, text=ENDED, question_id=record.id, ended=True)

    # read side for surfaces with their own views (the web UI) ------------------------------

    async def prompt_for(self, question_id: QuestionId,
                         surface: SurfaceId | None = None) -> Prompt | None:
        record = await self.store.get_question(question_id)
        if record is None or not record.pending:
            return None
        return await self.native.prompt(record, surface)

    async def question_view(self, question_id: QuestionId) -> dict[str, Any] | None:
        record = await self.store.get_question(question_id)
        if record is None:
            return None
        return question_view(record, await self.store.deliveries(question_id))

    async def pending_views(self) -> list[dict[str, Any]]:
        records = sorted(await self.store.pending_questions(), key=lambda r: r.created_at)
        return await self._views(records)

    async def timeline_view(self, agent: AgentName, session: SessionKey) -> list[dict[str, Any]]:
        return await self._views(await self.store.timeline(agent, session))

    async def _views(self, records: list[QuestionRecord]) -> list[dict[str, Any]]:
        return question_views(records, await self.store.deliveries_for([r.id for r in records]))

    async def session_views(self) -> list[dict[str, Any]]:
        out: list[tuple[int, dict[str, Any]]] = []
        for name in self.broker.agents:
            infos: list[SessionInfo] = await self.store.sessions(AgentName(name))
            out += [(i.last_at, {"agent": name, "session": i.session, "pending": i.pending,
                                 "lastAt": iso(i.last_at)}) for i in infos]
        return [view for _, view in sorted(out, key=lambda p: -p[0])]


def _check_answers(questions: list[Question], answers: dict[str, list[str]]) -> str | None:
    for q in questions:
        given = [a.strip() for a in answers.get(q.id, []) if a.strip()]
        if not given:
            return f"{q.header}: choose an option or write your own answer."
        if not q.multi_select and len(given) > 1:
            return f"{q.header}: choose just one answer."
    return None


def _canonical(questions: list[Question], answers: dict[str, list[str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for q in questions:
        given = list(dict.fromkeys(a.strip() for a in answers[q.id] if a.strip()))
        labels = [o.label for o in q.options if o.label in given]
        free = [a for a in given if a not in labels]
        out[q.id] = labels + free
    return out

