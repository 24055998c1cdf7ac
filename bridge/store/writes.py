"""The store's writes as data: each is the statements of one transaction, run alike everywhere."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bridge.model.ids import MessageRef, QuestionId, SurfaceId
from bridge.store.records import (
    DeliveryState,
    QuestionRecord,
    Resolution,
    TimerRecord,
    now_ms,
)

Row = Sequence[Any]


class Executor(Protocol):
    """One connection (inside a transaction or not); SQL uses `?` placeholders everywhere."""

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        """Run a statement; return the number of rows it changed."""
        ...

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None: ...

    async def rows(self, sql: str, args: Sequence[Any] = ()) -> list[Row]: ...


@dataclass(frozen=True, slots=True)
class Step:
    """One statement; with `many`, run once per tuple of `args` (a batch)."""

    sql: str
    args: Sequence[Any] = ()
    many: bool = False


@dataclass(frozen=True, slots=True)
class Write:
    """One transaction. `first` decides: its changed-row count is the write's result, and when
    it changed nothing the rest is skipped (a lost compare-and-set writes nothing more) and
    nobody is told. Otherwise `then` runs, and other processes sharing the database hear
    `event` (`created`, `delivery` or `resolved`, and the question id) once it commits."""

    first: Step
    then: tuple[Step, ...] = ()
    event: tuple[str, QuestionId] | None = None


async def run(db: Executor, step: Step) -> int:
    """Run one step; the rows it changed (for a batch: how many tuples it was given)."""
    if step.many:
        await db.executemany(step.sql, step.args)
        return len(step.args)
    return await db.execute(step.sql, step.args)


QUESTION_COLUMNS = (
    "id, agent, session, request, status, reason, result, answered_surface, answered_user, "
    "summary, created_at, expires_at, resolved_at, approval"
)
INSERT_ASK = (
    "INSERT INTO asks (id, agent, session, request, created_at, expires_at, surfaces, timers) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")


def create_question(
    record: QuestionRecord, surfaces: Sequence[SurfaceId], timers: Sequence[TimerRecord]
) -> Write:
    """The question, a `sending` delivery per surface and its timers: one statement, which the
    `asks` view's trigger (migration 0006) spreads over the three tables. Nothing may follow
    it in `then`: SQLite counts no changed rows for an insert into a view."""
    if any(t.question_id != record.id for t in timers):
        raise ValueError("every timer written with a question must be that question's")
    return Write(
        Step(INSERT_ASK, (record.id, record.agent, record.session,
                          record.request.model_dump_json(by_alias=True), record.created_at,
                          record.expires_at, json.dumps(list(surfaces)),
                          json.dumps([[t.kind, t.seq, t.due_at] for t in timers]))),
        event=("created", record.id))


def set_delivery(
    question_id: QuestionId, surface: SurfaceId, state: DeliveryState,
    message_ref: MessageRef | None, error: str | None,
) -> Write:
    now = now_ms()
    return Write(Step(
        "UPDATE deliveries SET state = ?, message_ref = ?, error = ?, updated_at = ?, "
        "delivered_at = ? WHERE question_id = ? AND surface = ?",
        (state, message_ref, error, now, now if state == "delivered" else None, question_id,
         surface)), event=("delivery", question_id))


def resolve(question_id: QuestionId, resolution: Resolution) -> Write:
    """Compare-and-set from `pending`. Partial answers end with it without being deleted
    (`partial()` reads a pending question's only): one statement, so one round trip."""
    result, by = resolution.result, resolution.answered_by
    return Write(
        Step("UPDATE questions SET status = ?, reason = ?, result = ?, answered_surface = ?, "
             "answered_user = ?, summary = ?, resolved_at = ? WHERE id = ? AND status = 'pending'",
             (result.status, result.reason, json.dumps(result.to_json()),
              by.surface if by else None, by.user if by else None, resolution.summary,
              resolution.resolved_at, question_id)),
        event=("resolved", question_id))


def claim_finalization(question_id: QuestionId, surface: SurfaceId, lease_ms: int) -> Write:
    now = now_ms()
    return Write(Step(
        "UPDATE deliveries SET finalize_claimed_at = ? WHERE question_id = ? AND surface = ? "
        "AND finalized = 0 AND (finalize_claimed_at IS NULL OR finalize_claimed_at <= ?)",
        (now, question_id, surface, now - lease_ms)))


RELEASE_FINALIZATION_CLAIMS = Write(Step(
    "UPDATE deliveries SET finalize_claimed_at = NULL "
    "WHERE finalized = 0 AND finalize_claimed_at IS NOT NULL"))


def mark_finalized(question_id: QuestionId, surface: SurfaceId) -> Write:
    return Write(Step(
        "UPDATE deliveries SET finalized = 1, updated_at = ? "
        "WHERE question_id = ? AND surface = ? AND finalized = 0",
        (now_ms(), question_id, surface)))


def save_partial(question_id: QuestionId, answers: dict[str, list[str]]) -> Write:
    stamp = now_ms()
    return Write(Step(
        "INSERT INTO partial_answers (question_id, question_key, answers, updated_at) "
        "VALUES (?, ?, ?, ?) ON CONFLICT (question_id, question_key) "
        "DO UPDATE SET answers = excluded.answers, updated_at = excluded.updated_at",
        [(question_id, k, json.dumps(v), stamp) for k, v in answers.items()], many=True))
