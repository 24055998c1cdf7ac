"""The broker: asks go out to every surface, the first valid answer wins, every delivery is finalized."""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

import structlog

from bridge.config import AgentConfig
from bridge.contract import AskRequest, AskResult
from bridge.errors import Conflict, Forbidden, NotFound
from bridge.i18n import DEFAULT_LOCALE
from bridge.outbound import Outbound
from bridge.reach import Reach, plan
from bridge.rendering import build_prompt, summary
from bridge.store.records import (
    AnsweredBy,
    PendingConflict,
    QuestionRecord,
    Resolution,
    Store,
    now_ms,
)
from bridge.types import (
    Adapter,
    AgentName,
    Prompt,
    QuestionId,
    SessionKey,
    SurfaceId,
    surface_platform,
)

log = structlog.get_logger("askbridge.broker")
_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


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

    def __init__(
        self,
        store: Store,
        adapters: Mapping[str, Adapter],
        agents: Mapping[str, AgentConfig],
        *,
        delivery_timeout: float = 30.0,
        finalize_timeout: float = 30.0,
    ) -> None:
        self.store = store
        self.adapters = dict(adapters)
        self.agents = dict(agents)
        self.delivery_timeout = delivery_timeout
        self.finalize_timeout = finalize_timeout
        self._timers: dict[QuestionId, asyncio.TimerHandle] = {}
        self._waiters: dict[QuestionId, _Outcome] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._locks: dict[QuestionId, asyncio.Lock] = {}
        self._open: dict[QuestionId, tuple[QuestionRecord, frozenset[SurfaceId]]] = {}
        """Pending questions as asked, with their surfaces: taps and replies skip two reads.
        Only ever a hint — every resolution is still a compare-and-set in the store."""
        self.draining = asyncio.Event()
        """Set when the server stops gracefully: blocking asks hand back, nothing is cancelled."""
        self.observers: list[Callable[[str, QuestionId], None]] = []
        """Told `created`, `delivery`, `reminded`, `escalated` or `resolved` for every change,
        local or by another replica."""
        self.listeners: list[Callable[[str, QuestionId], None]] = []
        """Told the same, but only of changes made by this process (event hooks: once each)."""
        self.reach = Reach(self)
        self.outbound = Outbound(self)
        self._sweeper: asyncio.Task[None] | None = None

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
                self._arm_at(question_id, expires_at)
        for d in await self.store.pending_deliveries():
            if d.state == "sending" and d.question_id in self._timers:
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
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=5)
        for task in set(self._tasks):
            task.cancel()

    def emit(self, event: str, question_id: QuestionId, local: bool = True) -> None:
        """Tell observers of a change; `local` ones (made here) reach `listeners` too."""
        for observer in list(self.observers) + (list(self.listeners) if local else []):
            try:
                observer(event, question_id)
            except Exception:
                log.exception("observer_failed", event_name=event, question_id=question_id)

    def _on_change(self, event: str, question_id: QuestionId) -> None:
        """A change committed by another replica (PostgreSQL NOTIFY)."""
        self.spawn(self._apply_remote(event, question_id))

    async def _apply_remote(self, event: str, question_id: QuestionId) -> None:
        if event == "created" and question_id not in self._timers:
            record = await self.open_question(question_id)
            if record is not None:
                self._arm(record)
                if self._reaches(record):
                    self.reach.scheduler.add(await self.store.timers_of(question_id))
        elif event == "resolved":
            self._settle(question_id)
        self.emit(event, question_id, local=False)

    def _settle(self, question_id: QuestionId, record: QuestionRecord | None = None) -> None:
        """Local bookkeeping once a question ended, here or elsewhere: wake waiters, drop timers."""
        handle = self._timers.pop(question_id, None)
        if handle:
            handle.cancel()
        event = self._waiters.pop(question_id, None)
        if event is not None:
            event.record = record
            event.set()
        self._locks.pop(question_id, None)
        self._open.pop(question_id, None)

    async def open_question(self, question_id: QuestionId) -> QuestionRecord | None:
        """The question if it is (as far as this process knows) still pending, else None."""
        cached = self._open.get(question_id)
        if cached is not None:
            return cached[0]
        record = await self.store.get_question(question_id)  # asked by another replica
        return record if record is not None and record.pending else None

    async def sent_to(self, question_id: QuestionId, surface: SurfaceId) -> bool:
        """Whether `surface` is one of the question's surfaces (the only ones that may answer)."""
        cached = self._open.get(question_id)
        if cached is not None and surface in cached[1]:
            return True  # not in the cache: maybe an escalation tier another replica sent
        return any(d.surface == surface for d in await self.store.deliveries(question_id))

    def known_pending(self, question_id: QuestionId) -> bool:
        """Asked here and not ended here (a hint: with replicas only the store knows)."""
        return question_id in self._open

    def add_surfaces(self, question_id: QuestionId, surfaces: list[SurfaceId]) -> None:
        """An escalation tier added surfaces: they may answer from now on."""
        cached = self._open.get(question_id)
        if cached is not None and surfaces:
            self._open[question_id] = (cached[0], cached[1] | frozenset(surfaces))

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def lock(self, question_id: QuestionId) -> asyncio.Lock:
        return self._locks.setdefault(question_id, asyncio.Lock())

    def locale_for(self, agent: str, surface: SurfaceId | None) -> str:
        """The language of a surface: its own config's (reported by its adapter as
        `Capabilities.locale`), else the agent's, else English."""
        adapter = self.adapters.get(surface_platform(surface)) if surface else None
        own = adapter.capabilities(surface).locale if adapter and surface else None
        if own:
            return own
        config = self.agents.get(agent)
        return config.locale if config is not None else DEFAULT_LOCALE

    # asking ------------------------------------------------------------------------------

    def _reaches(self, record: QuestionRecord) -> bool:
        """Whether the asking agent has reminders or escalation tiers configured."""
        agent = self.agents.get(record.agent)
        return agent is not None and bool(agent.remind_after or agent.escalation)

    def agent(self, name: str) -> AgentConfig:
        agent = self.agents.get(name)
        if agent is None:
            raise NotFound(f"There is no agent named {name!r}.")
        return agent

    async def ask(self, agent_name: str, session: str, request: AskRequest, *,
                  waiting: bool = True) -> QuestionRecord:
        """Store the question with its deliveries, then send to every surface in the background.
        `waiting`: the caller will wait for the end (its waiter is made now, so the wait needs
        no read); a non-blocking ask leaves none behind for each of thousands pending."""
        agent = self.agent(agent_name)
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
        )
        surfaces = [SurfaceId(s) for s in dict.fromkeys(agent.surfaces)]
        timers = plan(agent, record) if self._reaches(record) else []
        try:
            await self.store.create_question(record, surfaces, timers)
        except PendingConflict:
            raise Conflict(
                f"A question is already pending in session {session!r}; wait for its result "
                "(or cancel it) before asking another."
            ) from None
        if waiting:
            self._waiters.setdefault(record.id, _Outcome()).fresh = True
        self._open[record.id] = (record, frozenset(surfaces))
        self._arm(record)
        if timers:
            self.reach.scheduler.add(timers)
        log.info("question_created", question_id=record.id, agent=agent.name, session=session,
                 surfaces=len(surfaces))
        self.emit("created", record.id)
        self.spawn(self.outbound.deliver_all(record, surfaces))
        return record

    def adapter_for(self, surface: SurfaceId) -> Adapter | None:
        return self.adapters.get(surface_platform(surface))

    def prompt_for_surface(self, record: QuestionRecord, surface: SurfaceId,
                           partial: Mapping[str, list[str]] | None = None) -> Prompt:
        """The prompt as `surface` shows it: native or text by its adapter's capabilities, in
        its locale, with `partial` answers (kept selections) shown."""
        adapter = self.adapter_for(surface)
        return build_prompt(record, adapter.capabilities(surface) if adapter else False,
                            self.locale_for(record.agent, surface), partial)

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
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            pass
        if event.record is not None:  # ended here: the record as committed, without a read
            return event.record
        return await self.get(question_id)

    async def cancel(self, question_id: QuestionId) -> QuestionRecord:
        """Cancel a pending question; an answer that already won stays the answer."""
        await self._resolve(question_id, AskResult.no_answer("cancelled"), None)
        return await self.get(question_id)

    async def expire(self, question_id: QuestionId) -> None:
        await self._resolve(question_id, AskResult.no_answer("expired"), None)

    def _arm(self, record: QuestionRecord) -> None:
        self._arm_at(record.id, record.expires_at)

    def _arm_at(self, question_id: QuestionId, expires_at: int) -> None:
        loop = asyncio.get_running_loop()
        delay = max(0.0, (expires_at - now_ms()) / 1000)
        old = self._timers.pop(question_id, None)
        if old is not None:
            old.cancel()
        self._timers[question_id] = loop.call_later(
            delay, lambda: self.spawn(self.expire(question_id))
        )

    async def resolve(
        self, question_id: QuestionId, result: AskResult, by: AnsweredBy | None
    ) -> bool:
        """Compare-and-set the question to `result`; True for the one caller that won."""
        return await self._resolve(question_id, result, by)

    async def _resolve(
        self, question_id: QuestionId, result: AskResult, by: AnsweredBy | None
    ) -> bool:
        record = await self.open_question(question_id)
        if record is None:
            return False
        questions = list(record.request.questions)
        resolution = Resolution(result, summary(result, questions), now_ms(), by)
        if not await self.store.resolve(question_id, resolution):
            return False
        final = dataclasses.replace(
            record, status=result.status, reason=result.reason, result=result, answered_by=by,
            summary=resolution.summary, resolved_at=resolution.resolved_at)
        self._settle(question_id, final)
        for _ in range(3):  # the woken agent's handler needs three loop turns to respond:
            await asyncio.sleep(0)  # let its answer go out before our logs and edits
        self.emit("resolved", question_id)
        log.info("question_resolved", question_id=question_id, status=result.status,
                 reason=result.reason, surface=by.surface if by else None)
        self.spawn(self.outbound.finalize_all(question_id, final))
        return True
