"""Reach: reminders and escalation tiers, fired from durable timers once each, never at or after
the deadline."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

import structlog

from bridge.core.emitter import Emit
from bridge.core.open_questions import OpenQuestions
from bridge.core.outbound import Outbound
from bridge.core.surfaces import Surfaces
from bridge.core.tasks import Spawn
from bridge.model.adapter import DeliveryError, Reminding
from bridge.model.ids import MessageRef, SurfaceId
from bridge.model.prompt import Delivery, Prompt, Reminder
from bridge.runtime.config import AgentConfig
from bridge.runtime.pace import Priority
from bridge.store.protocol import Store
from bridge.store.records import QuestionRecord, TimerRecord, now_ms
from bridge.text.i18n import tr

log = structlog.get_logger("askbridge.reach")
LEASE_MS = 60_000
"""A claimed timer whose sender died is taken again after this long (at the next start)."""


def plan(agent: AgentConfig, record: QuestionRecord) -> list[TimerRecord]:
    """The question's reminders and tiers as timers; those due at or after the deadline dropped."""
    timers = [TimerRecord(record.id, "remind", n, record.created_at + round(s * 1000))
              for n, s in enumerate(agent.remind_after, start=1)]
    timers += [TimerRecord(record.id, "escalate", n, record.created_at + round(t.after * 1000))
               for n, t in enumerate(agent.escalation, start=1)]
    return [t for t in timers if t.due_at < record.expires_at]


def reminder_text(prompt: Prompt, now_ms_: int | None = None) -> str:
    """`Reminder: Deploy — still waiting for your answer; expires in 12 min` (in the locale)."""
    headers = ", ".join(q.header for q in prompt.questions)
    left = prompt.expires_at.timestamp() - (now_ms_ if now_ms_ is not None else now_ms()) / 1000
    minutes = round(left / 60)
    if minutes >= 1:
        return tr(prompt.locale, "Reminder: {headers} — still waiting for your answer; expires "
                  "in {minutes} min.", headers=headers, minutes=minutes)
    return tr(prompt.locale, "Reminder: {headers} — still waiting for your answer; expires "
              "in under a minute.", headers=headers)


class Scheduler:
    """Every timer of every question in one heap, served by one task (not a handle each)."""

    def __init__(self, fire: Callable[[TimerRecord], Coroutine[Any, Any, None]],
                 spawn: Callable[[Coroutine[Any, Any, None]], object]) -> None:
        self._fire = fire
        self._spawn = spawn
        self._heap: list[tuple[int, int, TimerRecord]] = []
        self._known: set[tuple[str, str, int]] = set()
        self._order = itertools.count()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def add(self, timers: Iterable[TimerRecord]) -> None:
        """Queue `timers`; the task sleeping until the first due one wakes only when one of
        these is due before it (an ask adds timers due later than those already queued)."""
        first = self._heap[0][0] if self._heap else None
        for t in timers:
            key = (t.question_id, t.kind, t.seq)
            if key not in self._known:
                self._known.add(key)
                heapq.heappush(self._heap, (t.due_at, next(self._order), t))
        if self._heap and (first is None or self._heap[0][0] < first):
            self._wake.set()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            if not self._heap:
                await self._wake.wait()
                continue
            delay = (self._heap[0][0] - now_ms()) / 1000
            if delay > 0:
                try:  # an earlier timer added meanwhile wakes us (a timeout scope: no task)
                    async with asyncio.timeout(delay):
                        await self._wake.wait()
                except TimeoutError:
                    pass
                continue
            _, _, timer = heapq.heappop(self._heap)
            self._known.discard((timer.question_id, timer.kind, timer.seq))
            self._spawn(self._fire(timer))


class Reach:
    """Sends a question's reminders and escalation tiers for the broker."""

    def __init__(self, store: Store, surfaces: Surfaces, open_questions: OpenQuestions,
                 outbound: Outbound, spawn: Spawn, emit: Emit) -> None:
        self.store = store
        self.surfaces = surfaces
        self.open = open_questions
        self.outbound = outbound
        self.emit = emit
        self.scheduler = Scheduler(self.fire, spawn)
        self.in_flight: dict[SurfaceId, int] = {}
        """Reminders sent but not yet recorded, per surface: a reply to one may beat its record."""

    async def fire(self, timer: TimerRecord) -> None:
        """Send one due timer, if its question is still pending and before the deadline;
        the store's claim makes it once among restarts and replicas."""
        record = await self.open.get(timer.question_id)
        if record is None or now_ms() >= record.expires_at:
            return
        if not await self.store.claim_timer(timer, LEASE_MS):
            return
        if timer.kind == "remind":
            await self._remind(record, timer.seq)
        else:
            await self._escalate(record, timer.seq)
        await self.store.timer_done(timer)

    async def _remind(self, record: QuestionRecord, number: int) -> None:
        live = [d for d in await self.store.deliveries(record.id)
                if d.state == "delivered" and not d.finalized]
        sent = await asyncio.gather(*(self._remind_one(record, d.surface, d.message_ref, number)
                                      for d in live))
        log.info("question_reminded", question_id=record.id, number=number, surfaces=sum(sent))
        self.emit("reminded", record.id)

    async def _remind_one(self, record: QuestionRecord, surface: SurfaceId,
                          ref: MessageRef | None, number: int) -> bool:
        adapter = self.surfaces.adapter_for(surface)
        if not isinstance(adapter, Reminding):
            return False
        prompt = self.surfaces.prompt(record, surface)
        reminder = Reminder(prompt=prompt, text=reminder_text(prompt), number=number)
        self.in_flight[surface] = self.in_flight.get(surface, 0) + 1
        try:
            async with (self.outbound.turn(surface, Priority.REMINDER),
                        asyncio.timeout(self.outbound.timeouts.delivery)):
                posted = await adapter.remind(Delivery(record.id, surface, ref), reminder)
            # The arguments this reminder showed: an edit's reshow may mark the old messages
            # between its send and this record, and a reply to it must not count for new ones.
            shown = record.approval.payload_hash if record.approval is not None else None
            await self.store.note_reminder(record.id, surface, posted, shown)
        except (DeliveryError, TimeoutError) as exc:
            log.warning("reminder_failed", question_id=record.id, surface=surface,
                        error=str(exc) or type(exc).__name__)
            return False
        except Exception as exc:  # an adapter bug must not stop the other surfaces
            log.exception("reminder_crashed", question_id=record.id, surface=surface)
            log.warning("reminder_failed", question_id=record.id, surface=surface,
                        error=type(exc).__name__)
            return False
        finally:
            self.in_flight[surface] -= 1
            if not self.in_flight[surface]:
                del self.in_flight[surface]
        return True

    async def _escalate(self, record: QuestionRecord, tier: int) -> None:
        tiers = self.surfaces.agent(record.agent).escalation
        if tier > len(tiers):  # the config lost this tier since the question was asked
            return
        surfaces = [SurfaceId(s) for s in dict.fromkeys(tiers[tier - 1].surfaces)]
        added = await self.store.add_deliveries(record.id, surfaces, tier)
        self.open.add_surfaces(record.id, added)
        log.info("question_escalated", question_id=record.id, tier=tier, surfaces=added)
        self.emit("escalated", record.id)
        await asyncio.gather(*(self.outbound.deliver_to(record, s) for s in added))
