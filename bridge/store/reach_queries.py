"""Reach as SQL: durable reminder/escalation timers, escalation deliveries, reminder messages
(and the prompts and reminders an approval's edit replaced)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from bridge.model.ids import MessageRef, QuestionId, SurfaceId
from bridge.store.records import TimerRecord, now_ms
from bridge.store.writes import Step, Write

TIMER_COLUMNS = "t.question_id, t.kind, t.seq, t.due_at"


class _Backend(Protocol):
    def _tx(self) -> AbstractAsyncContextManager[Any]: ...

    async def _write(self, write: Write) -> int: ...

    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]: ...

    async def _notify(self, db: Any, event: str, question_id: QuestionId) -> None: ...


def _timer(row: Sequence[Any]) -> TimerRecord:
    qid, kind, seq, due_at = tuple(row)
    return TimerRecord(QuestionId(qid), kind, int(seq), int(due_at))


class ReachQueries:
    """The `Store` reach methods for any SQL backend that provides `_write()`, `_tx()` and `_rows()`."""

    async def open_timers(self: _Backend) -> list[TimerRecord]:
        rows = await self._rows(
            f"SELECT {TIMER_COLUMNS} FROM timers t JOIN questions q ON q.id = t.question_id "
            "WHERE t.sent_at IS NULL AND q.status = 'pending' ORDER BY t.due_at")
        return [_timer(r) for r in rows]

    async def timers_of(self: _Backend, question_id: QuestionId) -> list[TimerRecord]:
        rows = await self._rows(
            f"SELECT {TIMER_COLUMNS} FROM timers t WHERE t.question_id = ? AND t.sent_at IS NULL "
            "ORDER BY t.due_at", (question_id,))
        return [_timer(r) for r in rows]

    async def claim_timer(self: _Backend, timer: TimerRecord, lease_ms: int) -> bool:
        now = now_ms()
        return await self._write(Write(Step(
            "UPDATE timers SET claimed_at = ? WHERE question_id = ? AND kind = ? AND seq = ? "
            "AND sent_at IS NULL AND (claimed_at IS NULL OR claimed_at <= ?)",
            (now, timer.question_id, timer.kind, timer.seq, now - lease_ms)))) == 1

    async def timer_done(self: _Backend, timer: TimerRecord) -> None:
        await self._write(Write(Step(
            "UPDATE timers SET sent_at = ? WHERE question_id = ? AND kind = ? AND seq = ?",
            (now_ms(), timer.question_id, timer.kind, timer.seq))))

    async def add_deliveries(
        self: _Backend, question_id: QuestionId, surfaces: Sequence[SurfaceId], tier: int
    ) -> list[SurfaceId]:
        added: list[SurfaceId] = []
        now = now_ms()
        async with self._tx() as db:
            rows = await db.rows(
                "SELECT COALESCE(MAX(position), -1) FROM deliveries WHERE question_id = ?",
                (question_id,))
            position = int(rows[0][0]) + 1
            for surface in surfaces:
                changed = await db.execute(
                    "INSERT INTO deliveries (question_id, surface, position, state, updated_at, "
                    "tier) VALUES (?, ?, ?, 'sending', ?, ?) ON CONFLICT DO NOTHING",
                    (question_id, surface, position, now, tier))
                if changed:
                    added.append(surface)
                    position += 1
            if added:
                await self._notify(db, "delivery", question_id)
        return added

    async def note_reminder(
        self: _Backend, question_id: QuestionId, surface: SurfaceId, message_ref: MessageRef | None,
        shown: str | None = None
    ) -> None:
        """Two lone statements, not a transaction (four trips on SQLite, and lone statements
        held back while it is open): the reminder's message first, so a reply to it finds its
        question, then the count, which only reports. `shown` is kept with the message (an
        edit may have replaced those arguments before this reminder was recorded), except for a
        message known by the question's own id, which always shows the current arguments."""
        if message_ref is not None:
            if str(message_ref) == str(question_id):
                shown = None
            await self._write(Write(Step(
                "INSERT INTO message_refs (surface, message_ref, question_id, shown) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (surface, message_ref, question_id, shown))))
        await self._write(Write(Step(
            "UPDATE deliveries SET reminders = reminders + 1, updated_at = ? "
            "WHERE question_id = ? AND surface = ?", (now_ms(), question_id, surface))))

    async def note_replaced(
        self: _Backend, question_id: QuestionId, surface: SurfaceId, prompt: MessageRef | None,
        shown: str
    ) -> bool:
        """An edit replaced the arguments (payload hash `shown`) that the prompt `prompt` and
        the reminders on `surface` showed: a reply to one still finds the question, and
        `replaced_shown` tells what it showed. Marks of an earlier edit are kept. A message
        known by the question's own id (web and webhook prompts) keeps that id when shown
        again, so it is never marked; its claim (below) is a row of its own, `<id>#<shown>`,
        which no reply ever names.

        True unless `prompt` was marked already: the one caller that marks a prompt is the
        one that shows it again (an edit and the prompt's own late record may both find it)."""
        async with self._tx() as db:
            await db.execute(
                "UPDATE message_refs SET shown = ? WHERE question_id = ? AND surface = ? "
                "AND shown IS NULL AND message_ref <> question_id", (shown, question_id, surface))
            if prompt is None:
                return True
            claim = f"{question_id}#{shown}" if str(prompt) == str(question_id) else str(prompt)
            return bool(await db.execute(
                "INSERT INTO message_refs (surface, message_ref, question_id, shown) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (surface, claim, question_id, shown)))

    async def replaced_shown(self: _Backend, surface: SurfaceId,
                             message_ref: MessageRef) -> str | None:
        """The payload hash `message_ref` showed, where it was recorded (see `note_reminder`
        and `note_replaced`); a ballot compares it with the arguments waiting now."""
        rows = await self._rows("SELECT shown FROM message_refs WHERE surface = ? "
                                "AND message_ref = ?", (surface, message_ref))
        return str(rows[0][0]) if rows and rows[0][0] is not None else None
