"""The broker: asks go out to every surface, the first valid answer wins, every delivery is finalized."""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

import structlog

from bridge.core.deadlines import Deadlines
from bridge.core.emitter import Emitter
from bridge.core.open_questions import OpenQuestions
from bridge.core.outbound import Outbound
from bridge.core.reach import Reach, plan
from bridge.core.surfaces import Surfaces
from bridge.core.tasks import Tasks
from bridge.model.approval import ApprovalRequest
from bridge.model.contract import AskRequest, AskResult
from bridge.model.errors import Conflict, Forbidden, NotFound
from bridge.model.ids import AgentName, QuestionId, SessionKey, SurfaceId
from bridge.runtime.config import AgentConfig
from bridge.runtime.tally import TALLY
from bridge.store.protocol import Store
from bridge.store.records import (
    AnsweredBy,
    PendingConflict,
    QuestionRecord,
    Resolution,
    TimerRecord,
    now_ms,
)
from bridge.text.rendering import summary

log = structlog.get_logger("askbridge.broker")
_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
Create = Callable[[QuestionRecord, list[SurfaceId], Sequence[TimerRecord]], Awaitable[None]]
"""Stores a new question with its deliveries and timers (an approval adds its own rows)."""
Commit = Callable[[QuestionRecord], Awaitable[Resolution | None]]
"""Ends a pending question in the store (a compare-and-set): the resolution written, or None."""


class _Outcome(asyncio.Event):
    """Set once the question ends; carries the terminal record when it ended in this process,
    so waiters need not read it back from the store."""

    record: QuestionRecord | None = None
    fresh = False
    """Made by ask() right after the commit: the question is known pending, no read needed."""


def new_question_id() -> QuestionId:
    """`q_` + 16 characters of a 32-letter alphabet; one urandom read (256 is a multiple of 32,
    so `byte % 32` is uniform) instead of sixteen `secrets.choice` calls."""
    return QuestionId("q_" + "".join(_ALPHABET[b % 32] for b in secrets.token_bytes(16)))


class Broker:
    """Owns question lifecycles; adapters are reached only through the `Adapter` contract."""

    def __init__(self, store: Store, surfaces: Surfaces, open_questions: OpenQuestions,
                 outbound: Outbound, reach: Reach, tasks: Tasks, emitter: Emitter) -> None:
        """Built by the composition root, which hands outbound and reach the narrow calls they
        make (spawn, emit, and this broker's end for an undelivered question)."""
        self.store = store
        self.surfaces = surfaces
        self.open = open_questions
        """Pending questions as asked here, with their surfaces: taps and replies skip reads."""
        self.outbound = outbound
        self.reach = reach
        self.tasks = tasks
        self.emitter = emitter
        self.deadlines = Deadlines(lambda question_id: self.spawn(self.expire(question_id)))
        self._waiters: dict[QuestionId, _Outcome] = {}
        self.draining = asyncio.Event()
        """Set when the server stops gracefully: blocking asks hand back, nothing is cancelled."""
        self._sweeper: asyncio.Task[None] | None = None
        self.ended: list[Callable[[QuestionRecord], None]] = []
        """Told of each question that ended here, with its final record (no read needed)."""

    # lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Recover after a restart: re-arm deadlines, expire overdue, finish interrupted work."""
        await self.store.listen(self._on_change)
        # Deadlines only: parsing every stored request (~40 µs each) would delay serving by
        # seconds with 10,000 pending; a recovered question is read on its first tap instead.
        deadlines = await self.store.pending_deadlines()
        now = now_ms()
        for question_id, expires_at in deadlines:
            if expires_at <= now:
                await self.expire(question_id)
            else:
                self.deadlines.arm(question_id, expires_at)
        for d in await self.store.pending_deliveries():
            if d.state == "sending" and d.question_id in self.deadlines:
                owner = await self.store.get_question(d.question_id)
                if owner is not None and owner.pending:
                    self.spawn(self.outbound.deliver_to(owner, d.surface, resend=True))
        if self.store.shared:  # replicas: a dead one's claims lapse; look again now and then
            self._sweeper = asyncio.create_task(self.outbound.sweep())
        else:  # one process: whoever claimed an edit before this start is gone
            await self.store.release_finalization_claims()
        for d in await self.store.unfinalized():
            self.spawn(self.outbound.finalize_one(d))
        self.reach.scheduler.add(await self.store.open_timers())  # overdue ones fire at once
        self.reach.scheduler.start()
        log.info("broker_started", pending=len(deadlines))

    async def stop(self) -> None:
        """Leave pending questions pending; wait briefly for in-flight sends and edits."""
        await self.reach.scheduler.stop()
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)
        self.deadlines.clear()
        await self.tasks.drain(5)

    async def _conflict(self, agent: AgentName, session: SessionKey) -> Conflict:
        """The refusal of a second question in a session: which one waits, and how to end it."""
        waiting = [r.id for r in await self.store.timeline(agent, session, 5) if r.pending]
        if not waiting:  # it ended in between: the agent may simply ask again
            return Conflict(f"A question was pending in session {session!r}; ask again.")
        qid = waiting[0]
        return Conflict(
            f"Question {qid} is already pending in session {session!r}; wait for its result, or "
            f"cancel it first (`askbridge cancel {qid}`, or POST /v1/questions/{qid}/cancel).",
            pending_id=qid)

    def emit(self, event: str, question_id: QuestionId, local: bool = True) -> None:
        self.emitter.emit(event, question_id, local)

    def _on_change(self, event: str, question_id: QuestionId) -> None:
        """A change committed by another replica (PostgreSQL NOTIFY)."""
        self.spawn(self._apply_remote(event, question_id))

    async def _apply_remote(self, event: str, question_id: QuestionId) -> None:
        if event == "created" and question_id not in self.deadlines:
            record = await self.open.get(question_id)
            if record is not None:
                self.deadlines.arm(record.id, record.expires_at)
                if self.surfaces.reaches(record):
                    self.reach.scheduler.add(await self.store.timers_of(question_id))
        elif event == "resolved":
            self._settle(question_id)
        self.emit(event, question_id, local=False)

    def _settle(self, question_id: QuestionId, record: QuestionRecord | None = None) -> None:
        """Local bookkeeping once a question ended, here or elsewhere: wake waiters, drop timers."""
        self.deadlines.disarm(question_id)
        event = self._waiters.pop(question_id, None)
        if event is not None:
            event.record = record
            event.set()
        self.open.forget(question_id)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        return self.tasks.spawn(coro)

    # asking ------------------------------------------------------------------------------

    def agent(self, name: str) -> AgentConfig:
        """The agent a token named (its role, surfaces and policy); `NotFound` if unknown."""
        return self.surfaces.agent(name)

    def drain(self) -> None:
        """The server stops gracefully: blocking asks hand back, nothing is cancelled."""
        self.draining.set()

    async def ask(self, agent_name: str, session: str, request: AskRequest, *,
                  waiting: bool = True, approval: ApprovalRequest | None = None,
                  create: Create | None = None) -> QuestionRecord:
        """Store the question with its deliveries, then send to every surface in the background.
        `waiting`: the caller will wait for the end (its waiter is made now, so the wait needs
        no read); a non-blocking ask leaves none behind for each of thousands pending.
        `approval` and `create`: an approval's backing question, stored by `create`."""
        agent = self.surfaces.agent(agent_name)
        if agent.role != "main":
            raise Forbidden(
                "ask_user is only for main sessions; this agent is a subagent. Continue with "
                "your best judgment, or report the open decision to the main agent."
            )
        created = now_ms()
        record = QuestionRecord(
            id=new_question_id(),
            agent=AgentName(agent.name),
            session=SessionKey(session),
            request=request,
            status="pending",
            created_at=created,
            expires_at=created + request.timeout_seconds * 1000,
            approval=approval,
        )
        surfaces = [SurfaceId(s) for s in dict.fromkeys(agent.surfaces)]
        timers = plan(agent, record) if self.surfaces.reaches(record) else []
        try:
            await (create or self.store.create_question)(record, surfaces, timers)
        except PendingConflict:
            raise await self._conflict(record.agent, record.session) from None
        if waiting:
            self._waiters.setdefault(record.id, _Outcome()).fresh = True
        self.open.remember(record, surfaces)
        self.deadlines.arm(record.id, record.expires_at)
        if timers:
            self.reach.scheduler.add(timers)
        log.info("question_created", question_id=record.id, agent=agent.name, session=session,
                 surfaces=len(surfaces))
        TALLY.asked += 1
        self.emit("created", record.id)
        self.outbound.deliver_all(record, surfaces)
        return record

    # waiting and ending ------------------------------------------------------------------

    async def get(self, question_id: QuestionId) -> QuestionRecord:
        record = await self.store.get_question(question_id)
        if record is None:
            raise NotFound(f"There is no question {question_id!r}.")
        return record

    async def wait(self, question_id: QuestionId, timeout: float | None) -> QuestionRecord:
        """The question once terminal, or as it stands when `timeout` seconds pass."""
        event = self._waiters.setdefault(question_id, _Outcome())  # before the read: no gap
        if not event.fresh:
            record = await self.get(question_id)
            if not record.pending:
                self._waiters.pop(question_id, None)
                return record
        try:  # a timeout scope, not wait_for: no task in between, so set() wakes this at once
            async with asyncio.timeout(timeout):
                await event.wait()
        except TimeoutError:
            pass
        if event.record is not None:  # ended here: the record as committed, without a read
            return event.record
        return await self.get(question_id)

    async def cancel(self, question_id: QuestionId) -> QuestionRecord:
        """Cancel a pending question; an answer that already won stays the answer."""
        await self.resolve(question_id, AskResult.no_answer("cancelled"), None)
        return await self.get(question_id)

    async def expire(self, question_id: QuestionId) -> None:
        await self.resolve(question_id, AskResult.no_answer("expired"), None)

    async def undelivered(self, question_id: QuestionId) -> None:
        """No surface could show the prompt: end it now rather than wait out the deadline."""
        await self.resolve(question_id, AskResult.no_answer("undelivered"), None)

    async def resolve(
        self, question_id: QuestionId, result: AskResult, by: AnsweredBy | None
    ) -> bool:
        """Compare-and-set the question to `result`; True for the one caller that won."""

        async def commit(record: QuestionRecord) -> Resolution | None:
            resolution = Resolution(result, summary(result, list(record.request.questions)),
                                    now_ms(), by)
            return resolution if await self.store.resolve(question_id, resolution) else None

        return await self.conclude(question_id, commit)

    async def conclude(self, question_id: QuestionId, commit: Commit) -> bool:
        """End a pending question through `commit` (an approval's vote writes its decision in
        the same transaction); True for the one caller whose commit ended it."""
        record = await self.open.get(question_id)
        if record is None:
            return False
        resolution = await commit(record)
        if resolution is None:
            return False
        result, by = resolution.result, resolution.answered_by
        final = dataclasses.replace(
            record, status=result.status, reason=result.reason, result=result, answered_by=by,
            summary=resolution.summary, resolved_at=resolution.resolved_at)
        self._settle(question_id, final)
        # _settle's set() scheduled each waiting agent's next step, and that step writes its
        # answer (Broker.wait and the API's wait have no task in between). Yield once so it
        # runs before this caller replies on the platform and before any prompt is edited.
        await asyncio.sleep(0)
        self.spawn(self._resolved(final))
        return True

    async def _resolved(self, final: QuestionRecord) -> None:
        """What follows an end, in a task of its own so the resolving caller does not wait
        for it: observers and hooks hear of it, then every delivered prompt is edited."""
        for hear in self.ended:
            hear(final)
        self.emit("resolved", final.id)
        TALLY.question_resolved(final.status, final.reason,
                                ((final.resolved_at or now_ms()) - final.created_at) / 1000)
        log.info("question_resolved", question_id=final.id, status=final.status,
                 reason=final.reason, surface=final.answered_by.surface if final.answered_by else None)
        await self.outbound.finalize_all(final.id, final)
