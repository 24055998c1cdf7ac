"""Store records and the `Store` protocol every backend implements."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, Protocol

from bridge.contract import AskRequest, AskResult, NoAnswerReason
from bridge.types import AgentName, MessageRef, QuestionId, SessionKey, SurfaceId, UserRef

Status = Literal["pending", "answered", "no_answer"]
DeliveryState = Literal["sending", "delivered", "failed"]


def now_ms() -> int:
    return int(datetime.now(UTC).timestamp() * 1000)


def ms_to_dt(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def iso(ms: int | None) -> str | None:
    """ISO 8601 UTC with milliseconds and a `Z`."""
    if ms is None:
        return None
    return ms_to_dt(ms).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class PendingConflict(Exception):
    """A question is already pending for this (agent, session)."""


@dataclass(frozen=True, slots=True)
class AnsweredBy:
    surface: SurfaceId
    user: UserRef


@dataclass(frozen=True, slots=True)
class QuestionRecord:
    id: QuestionId
    agent: AgentName
    session: SessionKey
    request: AskRequest
    status: Status
    created_at: int
    expires_at: int
    reason: NoAnswerReason | None = None
    result: AskResult | None = None
    answered_by: AnsweredBy | None = None
    summary: str | None = None
    resolved_at: int | None = None

    @property
    def pending(self) -> bool:
        return self.status == "pending"


@dataclass(frozen=True, slots=True)
class DeliveryRecord:
    question_id: QuestionId
    surface: SurfaceId
    state: DeliveryState
    message_ref: MessageRef | None = None
    error: str | None = None
    finalized: bool = False


@dataclass(frozen=True, slots=True)
class Resolution:
    """The terminal state a compare-and-set tries to write."""

    result: AskResult
    summary: str
    resolved_at: int
    answered_by: AnsweredBy | None = None


@dataclass(frozen=True, slots=True)
class SessionInfo:
    session: SessionKey
    pending: int
    last_at: int


class Store(Protocol):
    """Durable state. Every backend passes `tests/store/test_store_contract.py`."""

    shared: bool
    """True when other processes (replicas) write to the same database."""

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def create_question(self, record: QuestionRecord, surfaces: list[SurfaceId]) -> None:
        """Insert the question and a `sending` delivery per surface, atomically.

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

    async def mark_finalized(self, question_id: QuestionId, surface: SurfaceId) -> bool:
        """Claim a delivery's finalization; True exactly once per delivery."""
        ...

    async def pending_questions(self) -> list[QuestionRecord]: ...

    async def pending_deliveries(self) -> list[DeliveryRecord]:
        """Every delivery of every pending question, in one read (restart)."""
        ...

    async def pending_on_surface(
        self, surface: SurfaceId, state: DeliveryState = "delivered"
    ) -> list[QuestionRecord]:
        """Pending questions whose delivery to `surface` is in `state`, oldest first."""
        ...

    async def find_delivery(
        self, surface: SurfaceId, message_ref: MessageRef
    ) -> DeliveryRecord | None: ...

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

    async def state_get(self, platform: str, key: str) -> str | None:
        """An adapter's stored value for `key`, or None."""
        ...

    async def state_put(self, platform: str, key: str, value: str) -> None:
        """Insert or replace an adapter's value for `key`."""
        ...

    async def state_delete(self, platform: str, key: str) -> bool:
        """Remove `key`; True when it was there."""
        ...

    async def state_items(self, platform: str, prefix: str = "") -> list[tuple[str, str]]:
        """Every `(key, value)` of the adapter whose key starts with `prefix`, by key."""
        ...
