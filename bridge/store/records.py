"""What the store keeps: questions, deliveries, timers, events, as plain records."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from bridge.model.approval import ApprovalRequest
from bridge.model.contract import AskRequest, AskResult, NoAnswerReason
from bridge.model.ids import AgentName, MessageRef, QuestionId, SessionKey, SurfaceId, UserRef

Status = Literal["pending", "answered", "no_answer"]
DeliveryState = Literal["sending", "delivered", "failed"]


def now_ms() -> int:
    """Milliseconds since the epoch (UTC), as every record stores time."""
    return time.time_ns() // 1_000_000


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
    approval: ApprovalRequest | None = None
    """Set on an approval's backing question: what its prompts show, and why an answer to it
    is a vote, not the end."""

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
    tier: int = 0
    """0 for the agent's own surfaces, n for the n-th escalation tier."""
    delivered_at: int | None = None
    reminders: int = 0
    """How many reminders were posted about this prompt."""


TimerKind = Literal["remind", "escalate"]


@dataclass(frozen=True, slots=True)
class TimerRecord:
    """A reminder (`seq` = its number, from 1) or escalation tier (`seq` = tier, from 1) due at
    `due_at`; stored with the question so restarts and replicas send each exactly once."""

    question_id: QuestionId
    kind: TimerKind
    seq: int
    due_at: int


@dataclass(frozen=True, slots=True)
class Resolution:
    """The terminal state a compare-and-set tries to write."""

    result: AskResult
    summary: str
    resolved_at: int
    answered_by: AnsweredBy | None = None


@dataclass(frozen=True, slots=True)
class OutboxEvent:
    """One event for one hook URL; `body` is the exact JSON sent on every try."""

    id: str
    url: str
    type: str
    body: str
    attempts: int = 0
    next_at: int = 0


@dataclass(frozen=True, slots=True)
class SessionInfo:
    session: SessionKey
    pending: int
    last_at: int
