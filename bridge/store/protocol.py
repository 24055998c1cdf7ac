"""The `Store` protocol: every call the core makes on durable state, whatever the backend."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from bridge.model.ids import AgentName, MessageRef, QuestionId, SessionKey, SurfaceId
from bridge.store.approval_protocol import ApprovalStore
from bridge.store.records import (
    DeliveryRecord,
    DeliveryState,
    OutboxEvent,
    QuestionRecord,
    Resolution,
    SessionInfo,
    TimerRecord,
)


class Store(ApprovalStore, Protocol):
    """Durable state. Every backend passes `tests/bridge/store/test_store.py`."""

    shared: bool
    """True when other processes (replicas) write to the same database."""
    retention_batch: int
    """Ended questions retention deletes per batch (`delete_ended`'s `limit`)."""

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def create_question(
        self, record: QuestionRecord, surfaces: list[SurfaceId], timers: Sequence[TimerRecord] = ()
    ) -> None:
        """Insert the question, a `sending` delivery per surface and its timers, atomically.

        Raises `PendingConflict` when (agent, session) already has a pending question.
        """
        ...

    async def set_delivery(
        self,
        question_id: QuestionId,
        surface: SurfaceId,
        state: DeliveryState,
        message_ref: MessageRef | None = None,
        error: str | None = None,
    ) -> None: ...

    async def resolve(self, question_id: QuestionId, resolution: Resolution) -> bool:
        """Compare-and-set from `pending`; True for the one caller that won."""
        ...

    async def get_question(self, question_id: QuestionId) -> QuestionRecord | None: ...

    async def deliveries(self, question_id: QuestionId) -> list[DeliveryRecord]: ...

    async def deliveries_for(
        self, question_ids: Sequence[QuestionId]
    ) -> dict[QuestionId, list[DeliveryRecord]]:
        """Deliveries of many questions in one read (timelines, the web UI's state)."""
        ...

    async def claim_finalization(
        self, question_id: QuestionId, surface: SurfaceId, lease_ms: int
    ) -> bool:
        """Take a delivery's edit for `lease_ms`; True for one caller until it is marked done or
        the lease lapses (its taker died before the edit: it is made again)."""
        ...

    async def release_finalization_claims(self) -> int:
        """Drop every claim of an unfinished edit (a single-process store at start: the claimer
        is gone); returns how many."""
        ...

    async def mark_finalized(self, question_id: QuestionId, surface: SurfaceId) -> bool:
        """The delivery's edit was made (or given up); True exactly once per delivery."""
        ...

    async def pending_questions(self) -> list[QuestionRecord]: ...

    async def pending_deadlines(self) -> list[tuple[QuestionId, int]]:
        """(id, expires_at) of every pending question: restart arms its timers from these
        without parsing 10,000 stored requests."""
        ...

    async def pending_deliveries(self) -> list[DeliveryRecord]:
        """Every delivery of every pending question, in one read (restart)."""
        ...

    async def pending_on_surface(
        self, surface: SurfaceId, state: DeliveryState = "delivered", limit: int | None = None
    ) -> list[QuestionRecord]:
        """Pending questions whose delivery to `surface` is in `state`, oldest first (at most
        `limit`: a stray reply only needs to know whether there are none, one or several)."""
        ...

    async def find_delivery(
        self, surface: SurfaceId, message_ref: MessageRef
    ) -> DeliveryRecord | None:
        """The delivery whose prompt, or one of whose reminders, is `message_ref` on `surface`."""
        ...

    async def unfinalized(self) -> list[DeliveryRecord]:
        """Delivered prompts of ended questions not yet finalized (work left by a crash)."""
        ...

    async def save_partial(self, question_id: QuestionId, answers: dict[str, list[str]]) -> None: ...

    async def partial(self, question_id: QuestionId) -> dict[str, list[str]]: ...

    async def timeline(
        self, agent: AgentName, session: SessionKey, limit: int = 100
    ) -> list[QuestionRecord]:
        """The session's questions, newest first."""
        ...

    async def sessions(self, agent: AgentName) -> list[SessionInfo]: ...

    async def migrations_missing(self) -> list[int]:
        """Numbered migrations this code knows that the database has not run (readiness)."""
        ...

    async def try_lead(self) -> bool:
        """Hold (or take) the lead for long connections; True while this process holds it.

        A single-process store always leads; PostgreSQL uses an advisory lock on a connection
        of its own, released by the database when the holder dies.
        """
        ...

    async def listen(self, handler: Callable[[str, QuestionId], None]) -> None:
        """Call `handler(event, question_id)` (`created`, `delivery`, `resolved`) for changes
        committed by other processes sharing this store; a single-process store never calls it."""
        ...

    # reach: timers, escalation deliveries, reminders, event outbox ---------------------------

    async def open_timers(self) -> list[TimerRecord]:
        """Timers not yet sent of every pending question (restart)."""
        ...

    async def timers_of(self, question_id: QuestionId) -> list[TimerRecord]:
        """The question's timers not yet sent (a replica hearing of another's ask)."""
        ...

    async def claim_timer(self, timer: TimerRecord, lease_ms: int) -> bool:
        """Take the timer for sending; True for one caller until it is done or its lease lapses."""
        ...

    async def timer_done(self, timer: TimerRecord) -> None: ...

    async def add_deliveries(
        self, question_id: QuestionId, surfaces: Sequence[SurfaceId], tier: int
    ) -> list[SurfaceId]:
        """Add `sending` deliveries for an escalation tier; returns the surfaces that were new."""
        ...

    async def note_reminder(
        self, question_id: QuestionId, surface: SurfaceId, message_ref: MessageRef | None,
        shown: str | None = None
    ) -> None:
        """Count a reminder posted on `surface`, and remember its message so replies bind
        (with `shown`, the payload hash of the approval's arguments it showed)."""
        ...

    async def note_replaced(
        self, question_id: QuestionId, surface: SurfaceId, prompt: MessageRef | None,
        shown: str
    ) -> bool:
        """An approval's edit replaced the arguments (payload hash `shown`) that its prompt
        `prompt` and its reminders on `surface` showed; replies to them stay bound to it.
        False when `prompt` was marked already (someone else shows it again)."""
        ...

    async def replaced_shown(self, surface: SurfaceId, message_ref: MessageRef) -> str | None:
        """The payload hash a prompt or reminder showed, where it was recorded (an approval's
        reminder; a prompt or reminder an edit replaced), else None."""
        ...

    async def enqueue_events(self, events: Sequence[OutboxEvent]) -> None: ...

    async def due_events(self, now: int, limit: int) -> list[OutboxEvent]:
        """Events not yet delivered whose next try is due, oldest first."""
        ...

    async def next_event_at(self) -> int | None:
        """When the earliest undelivered event is due, or None when there is none."""
        ...

    async def claim_event(self, event: OutboxEvent, until: int) -> bool:
        """Take an event for one try (its next try moves to `until`); True for one caller."""
        ...

    async def event_tried(
        self, event: OutboxEvent, *, done: bool, next_at: int | None, error: str | None
    ) -> None:
        """Record a try: delivered (`done`), to retry at `next_at`, or given up (neither)."""
        ...

    async def state_get(self, platform: str, key: str) -> str | None:
        """An adapter's stored value for `key`, or None."""
        ...

    async def state_put(self, platform: str, key: str, value: str) -> None:
        """Insert or replace an adapter's value for `key`."""
        ...

    async def state_put_new(self, platform: str, key: str, value: str) -> str:
        """Store `value` unless `key` has one already; return the value kept (first wins)."""
        ...

    async def state_delete(self, platform: str, key: str) -> bool:
        """Remove `key`; True when it was there."""
        ...

    async def state_items(self, platform: str, prefix: str = "") -> list[tuple[str, str]]:
        """Every `(key, value)` of the adapter whose key starts with `prefix`, by key."""
        ...

    # retention -------------------------------------------------------------------------------

    async def delete_ended(self, before: int, limit: int) -> int:
        """Delete up to `limit` questions that ended before `before` (ms since the epoch), oldest
        first, with their deliveries, partial answers, timers and reminder messages, in one
        short transaction; how many went. Replicas calling it at once never delete a row twice."""
        ...

    async def delete_old_events(self, before: int, limit: int) -> int:
        """Delete up to `limit` delivered or given-up event-hook events enqueued before
        `before`; how many went."""
        ...
