"""Outbound: a question's prompt sent to each surface, and every delivered prompt edited once
the question ended — claimed in the store first, so each edit is made once (and again if its
claimer died mid-edit)."""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

import structlog

from bridge.core.emitter import Emit
from bridge.core.onway import Once, on_its_way
from bridge.core.open_questions import OpenQuestions
from bridge.core.surfaces import Surfaces
from bridge.core.tasks import Spawn
from bridge.model.adapter import Adapter, DeliveryError
from bridge.model.ids import MessageRef, QuestionId, SurfaceId, surface_platform
from bridge.model.prompt import Delivery, Finalization
from bridge.runtime.pace import Pace, Priority
from bridge.runtime.tally import TALLY
from bridge.store.protocol import Store
from bridge.store.records import DeliveryRecord, QuestionRecord
from bridge.text.rendering import final_kind, status_line

log = structlog.get_logger("askbridge.broker")
CALLS_PER_PLATFORM = 4
"""Prompts, reminders and edits in flight at once to one platform that is not paced (a paced
one's limits bound its calls); the rest wait their turn here, in order. Waiting here is cheap,
and an HTTP client's connection pool grows slower with every connection it holds: 3,000 asks
to Telegram cost 1.9 ms of CPU each at 4 in flight, 2.3 ms at 8 and 2.8 ms at 16
(bench/README.md). 4 at once is still 40 calls/s at a 100 ms round trip, a little under
Discord's 50 requests/s per bot."""
SENDERS_PER_PLATFORM = 2 * CALLS_PER_PLATFORM
"""Tasks working one platform's line of first prompts: twice its turns, so that while some
send, the others record what they sent and take the next. A prompt waiting in the line is an
entry, not a task: a task waiting for its turn costs about 2 KB, and on a slow host 10,000
asks left 5,000 of them waiting at once; the process kept the memory (RSS with 10,000 pending
153 MB with waiting tasks, 141 MB with the line; bench/README.md, round 8)."""
IDLE_SENDERS_PER_PLATFORM = CALLS_PER_PLATFORM
"""Senders, besides those, that take only prompts to surfaces with nothing waiting: a chat that
was idle does not wait for a sender to come free of a busy chat's backlog (bench/README.md,
round 15). A paced platform's limits still decide when each call leaves."""
FINALIZE_LEASE_MS = 60_000
"""A claimed edit not done within this is another's to make (its claimer died mid-edit)."""


@dataclass(slots=True)
class _Prompts:
    """A new question's prompts in the lines: when the last is sent or given up, and none could
    be shown, the question ends `undelivered`. `after`: platforms whose senders start once a
    prompt of this question is on its way (see `Outbound.deliver_all`)."""

    record: QuestionRecord
    left: int
    after: list[str]
    shown: bool = False


@dataclass(frozen=True, slots=True)
class Timeouts:
    """How long a platform may take to show a prompt, and to edit one."""

    delivery: float = 30.0
    finalize: float = 30.0


class Outbound:
    """Delivery and finalization for the broker; adapters are reached only through it."""

    def __init__(self, store: Store, surfaces: Surfaces, open_questions: OpenQuestions,
                 spawn: Spawn, emit: Emit, undelivered: Callable[[QuestionId], Awaitable[Any]],
                 timeouts: Timeouts | None = None) -> None:
        """`undelivered` ends a question none of whose prompts could be shown."""
        self.store = store
        self.surfaces = surfaces
        self.open = open_questions
        self.spawn = spawn
        self.emit = emit
        self.undelivered = undelivered
        self.shown_late: Callable[[QuestionRecord, DeliveryRecord], Awaitable[Any]] | None = None
        """Set by approvals: a prompt shown with arguments an edit replaced on its way."""
        self.timeouts = timeouts or Timeouts()
        self._turns: dict[str, asyncio.Semaphore] = {}
        self._lines: dict[str, deque[tuple[_Prompts, SurfaceId]]] = {}
        """Per platform, first prompts not sent yet, in the order asked."""
        self._idle: dict[str, deque[tuple[_Prompts, SurfaceId]]] = {}
        """Per platform, prompts to surfaces with none waiting or on its way: taken before the
        line, so a chat that was idle is not kept behind other chats' backlog (a platform's
        limits can make that minutes long)."""
        self._waiting: Counter[SurfaceId] = Counter()
        self._senders: dict[str, int] = {}
        self._idle_senders: dict[str, int] = {}

    def deliver_all(self, record: QuestionRecord, surfaces: list[SurfaceId]) -> None:
        """Line up the prompt for each surface, and start a sender for the first platform.

        The other platforms' senders start one after another, each once the previous one's
        prompt is on its way (`on_its_way`: its request written and its answer awaited, or a
        turn on its platform awaited). Started together, their preparations (render, sign,
        build the request) would take turns at every checkpoint of their HTTP clients, and the
        first prompt would leave only after all of them were ready (bench/README.md, round 9).
        A platform whose senders are all busy is passed over: its line reaches the prompt in
        its order."""
        if not surfaces:
            self.spawn(self._undelivered(record))
            return
        platforms: list[str] = []
        prompts = _Prompts(record, len(surfaces), platforms)
        for surface in surfaces:
            platform = surface_platform(surface)
            lines = self._lines if self._waiting[surface] else self._idle
            lines.setdefault(platform, deque()).append((prompts, surface))
            self._waiting[surface] += 1
            platforms.append(platform)
        self._start_next(prompts)

    def _start_next(self, prompts: _Prompts) -> None:
        """Start a sender for the next of the question's prompts whose platform can have one
        more (a platform is listed once per surface: two chats on it are sent side by side), or,
        its senders all busy, an idle sender when prompts to idle surfaces wait."""
        while prompts.after:
            platform = prompts.after.pop(0)
            for senders, most, idle_only in (
                    (self._senders, SENDERS_PER_PLATFORM, False),
                    (self._idle_senders, IDLE_SENDERS_PER_PLATFORM, True)):
                if senders.get(platform, 0) < most and (not idle_only or self._idle.get(platform)):
                    senders[platform] = senders.get(platform, 0) + 1
                    self.spawn(self._send_line(platform, idle_only))
                    return

    async def _send_line(self, platform: str, idle_only: bool = False) -> None:
        """Send the platform's prompts one after another until none is left, those to idle
        surfaces first (`idle_only`: only those)."""
        line, idle = self._lines.setdefault(platform, deque()), self._idle.setdefault(platform,
                                                                                       deque())
        try:
            while idle or (line and not idle_only):
                prompts, surface = (idle or line).popleft()
                on_way = Once(partial(self._start_next, prompts)) if prompts.after else None
                try:
                    shown = await self.deliver_to(prompts.record, surface, on_way=on_way)
                    prompts.left -= 1
                    prompts.shown = prompts.shown or shown
                    if not prompts.left and not prompts.shown:
                        await self._undelivered(prompts.record)
                except asyncio.CancelledError:
                    on_way = None  # stopping: what is left stays `sending`, for the next start
                    raise
                except Exception:  # the store is away: the delivery stays `sending` for a restart
                    prompts.shown = True  # and the prompt may have been shown: do not end it
                    log.exception("delivery_not_recorded", question_id=prompts.record.id,
                                  surface=surface)
                finally:
                    self._sent(surface)
                    if on_way is not None:  # given up before it was on its way: start the next
                        on_way()
        finally:
            (self._idle_senders if idle_only else self._senders)[platform] -= 1

    def _sent(self, surface: SurfaceId) -> None:
        """A prompt to `surface` was sent (or given up): one fewer waiting there. A prompt still
        counts while it waits for room or is on the wire, so a chat whose one prompt is being
        paced is not idle, and the idle lane stays short."""
        self._waiting[surface] -= 1
        if not self._waiting[surface]:
            del self._waiting[surface]

    async def _undelivered(self, record: QuestionRecord) -> None:
        await self.undelivered(record.id)

    async def deliver_to(self, record: QuestionRecord, surface: SurfaceId,
                         resend: bool = False, on_way: Callable[[], None] | None = None) -> bool:
        """Send the prompt to one surface and record it; False when it could not be shown.
        `on_way` is called once the prompt is on its way, or given up (see `deliver_all`)."""
        adapter = self.surfaces.adapter_for(surface)
        if adapter is None:
            await self._failed(record, surface, f"no {surface_platform(surface)} adapter is "
                               "configured for this surface")
            return False
        try:
            sending = self._send(adapter, record, surface)
            ref, record = await (sending if on_way is None else on_its_way(sending, on_way))
        except DeliveryError as exc:
            await self._failed(record, surface, str(exc))
            return False
        except TimeoutError:
            await self._failed(record, surface, "the platform did not answer in time")
            return False
        except Exception as exc:  # an adapter bug must not stop the other surfaces
            log.exception("delivery_crashed", question_id=record.id, surface=surface)
            await self._failed(record, surface, f"unexpected {type(exc).__name__}")
            return False
        await self.store.set_delivery(record.id, surface, "delivered", ref)
        self.emit("delivery", record.id)
        log.info("question_delivered", question_id=record.id, surface=surface, resend=resend)
        TALLY.delivered(surface_platform(surface), ok=True)
        if await self._ended(record.id):  # ended while this prompt was on its way: edit it too
            await self.finalize_one(DeliveryRecord(record.id, surface, "delivered", ref))
        elif record.approval is not None and ref is not None and self.shown_late is not None:
            await self.shown_late(record, DeliveryRecord(record.id, surface, "delivered", ref))
        return True

    async def _send(self, adapter: Adapter, record: QuestionRecord,
                    surface: SurfaceId) -> tuple[MessageRef | None, QuestionRecord]:
        """The prompt, once the platform has a turn (waiting for one is a wait like any other:
        the next platform's sender starts meanwhile), and the record it showed: an approval's
        as it is then (an edit may have changed the arguments while the prompt waited)."""
        # asyncio.timeout: no extra task, unlike wait_for; the wait for a turn is not timed
        async with self.turn(surface, Priority.PROMPT), asyncio.timeout(self.timeouts.delivery):
            record = await self.open.current(record)
            return await adapter.deliver(surface, self.surfaces.prompt(record, surface)), record

    @asynccontextmanager
    async def turn(self, surface: SurfaceId, priority: Priority) -> AsyncIterator[None]:
        """Taken around every call to the surface's platform: room under its limits when its
        adapter is paced (prompts before reminders before edits), else one of the platform's
        turns (see CALLS_PER_PLATFORM). Neither wait counts against the call's timeout. A paced
        platform's limits already bound its calls; a turn on top would hold a chat's room while
        it waited, and at a slow platform's round trip cap the calls below the limits."""
        # Paced's own attribute, not isinstance(adapter, Paced): a runtime protocol's check
        # inspects the class on every call (~6 µs), and this is taken for every prompt and edit.
        pace = getattr(self.surfaces.adapter_for(surface), "pace", None)
        if isinstance(pace, Pace):
            async with pace.slot(surface, priority):
                yield
            return
        platform = surface_platform(surface)
        turn = self._turns.get(platform)
        if turn is None:
            turn = self._turns[platform] = asyncio.Semaphore(CALLS_PER_PLATFORM)
        async with turn:
            yield

    async def _ended(self, question_id: QuestionId) -> bool:
        """Whether the question has ended. In one process, resolutions happen here and drop the
        question from the broker's open set at once; with replicas only the database knows for sure."""
        if self.open.known(question_id) and not self.store.shared:
            return False
        current = await self.store.get_question(question_id)
        return current is not None and not current.pending

    async def _failed(self, record: QuestionRecord, surface: SurfaceId, why: str) -> None:
        await self.store.set_delivery(record.id, surface, "failed", None, why)
        log.warning("delivery_failed", question_id=record.id, surface=surface, error=why)
        TALLY.delivered(surface_platform(surface), ok=False)

    async def sweep(self) -> None:
        """Replicas: edits whose claimer died are made once its lease lapsed."""
        while True:
            await asyncio.sleep(FINALIZE_LEASE_MS / 2000)
            try:
                for d in await self.store.unfinalized():
                    self.spawn(self.finalize_one(d))
            except Exception as exc:  # the database is away: the next sweep tries again
                log.warning("finalize_sweep_failed", error=type(exc).__name__)

    async def finalize_all(self, question_id: QuestionId, record: QuestionRecord) -> None:
        deliveries = await self.store.deliveries(question_id)
        await asyncio.gather(
            *(self.finalize_one(d, record) for d in deliveries if d.state == "delivered")
        )

    async def finalize_one(
        self, delivery: DeliveryRecord, known: QuestionRecord | None = None
    ) -> None:
        """Edit one delivered prompt once its question ended (claimed in the store first)."""
        record = known or await self.store.get_question(delivery.question_id)
        adapter = self.surfaces.adapter_for(delivery.surface)
        if record is None or record.result is None or adapter is None:
            return
        if not await self.store.claim_finalization(delivery.question_id, delivery.surface,
                                                   FINALIZE_LEASE_MS):
            return
        result = record.result
        locale = self.surfaces.locale_for(record.agent, delivery.surface)
        final = Finalization(
            kind=final_kind(result),
            status_line=status_line(result, list(record.request.questions), locale,
                                    approval=record.approval is not None),
            prompt=self.surfaces.prompt(record, delivery.surface),
            answered_on=record.answered_by.surface if record.answered_by else None,
        )
        target = Delivery(delivery.question_id, delivery.surface,
                          MessageRef(delivery.message_ref) if delivery.message_ref else None)
        try:
            async with (self.turn(delivery.surface, Priority.EDIT),
                        asyncio.timeout(self.timeouts.finalize)):
                await adapter.finalize(target, final)
            log.info("delivery_finalized", question_id=delivery.question_id,
                     surface=delivery.surface, kind=final.kind)
        except Exception as exc:  # given up: the platform refused or is away past the timeout
            log.warning("finalize_failed", question_id=delivery.question_id,
                        surface=delivery.surface, error=type(exc).__name__)
        await self.store.mark_finalized(delivery.question_id, delivery.surface)
