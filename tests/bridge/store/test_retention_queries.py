"""Retention on both stores: what ended longer ago than `keep` goes with everything keyed to it,
in batches, each row once even when replicas purge at the same time."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bridge.core.retention import Retention
from bridge.model.contract import AskResult
from bridge.model.ids import MessageRef, QuestionId, SurfaceId, UserRef
from bridge.store import AnsweredBy, Resolution, SqliteStore, Store, now_ms
from bridge.store.postgres_store import PostgresStore
from bridge.store.records import OutboxEvent, TimerRecord
from bridge.store.retention_queries import KEYED_TO_A_QUESTION
from bridge.store.sql_store import SqlStore
from tests.bridge.store.support import SURFACES, record
from tests.pg import scratch_database, server_url

DAY_MS = 86_400_000
SECRET = "the vault code is 0451"
WEB = SurfaceId("web")


async def _ended(store: Store, qid: str, days_ago: float, session: str | None = None) -> None:
    """A question answered in free text `days_ago` days ago, with every kind of row keyed to it."""
    question = QuestionId(qid)
    await store.create_question(record(qid, session or qid), SURFACES,
                                [TimerRecord(question, "remind", 1, now_ms() + 60_000)])
    await store.set_delivery(question, WEB, "delivered", MessageRef(f"m-{qid}"))
    await store.note_reminder(question, WEB, MessageRef(f"r-{qid}"))
    await store.save_partial(question, {"deploy_target": [SECRET]})
    ended = now_ms() - int(days_ago * DAY_MS)
    assert await store.resolve(question, Resolution(
        AskResult.answered({"deploy_target": [SECRET]}), "Deploy: answered", ended,
        AnsweredBy(WEB, UserRef("7"))))


async def _rows_holding(store: Store, text: str) -> list[tuple[str, Any]]:
    """Every row of every table that holds `text`, wherever it is kept."""
    assert isinstance(store, SqlStore)
    if isinstance(store, SqliteStore):
        tables = await store._rows("SELECT name FROM sqlite_master WHERE type = 'table'")
    else:
        tables = await store._rows("SELECT table_name FROM information_schema.tables "
                                   "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'")
    found = []
    for (table,) in tables:
        found += [(table, row) for row in await store._rows(f"SELECT * FROM {table}")
                  if text in repr(row)]
    return found


async def _keyed_rows(store: Store, qid: str) -> int:
    assert isinstance(store, SqlStore)
    total = 0
    for table in ("deliveries", "partial_answers", "timers", "message_refs"):
        [(count,)] = await store._rows(f"SELECT COUNT(*) FROM {table} WHERE question_id = ?", (qid,))
        total += int(count)
    return total


async def test_ended_long_ago_goes_with_its_free_text_recent_and_pending_stay(
    store: Store,
) -> None:
    await _ended(store, "old", days_ago=31)
    await _ended(store, "recent", days_ago=29)
    await store.create_question(record("waiting", "waiting", expires_in=90 * DAY_MS), SURFACES)
    assert await _rows_holding(store, SECRET)

    assert await Retention(store, keep=30 * 86_400).purge() == (1, 0)

    assert await store.get_question(QuestionId("old")) is None
    assert await _keyed_rows(store, "old") == 0
    assert await store.find_delivery(WEB, MessageRef("m-old")) is None
    assert await store.find_delivery(WEB, MessageRef("r-old")) is None
    assert {table for table, _ in await _rows_holding(store, SECRET)} == {
        "questions", "partial_answers"}  # the recent question's, and only its
    assert all(row[0] == "recent" for _, row in await _rows_holding(store, SECRET))
    for kept in ("recent", "waiting"):
        assert await store.get_question(QuestionId(kept)) is not None
        assert await _keyed_rows(store, kept) > 0


async def test_forever_keeps_everything(store: Store) -> None:
    await _ended(store, "ancient", days_ago=3650)
    retention = Retention(store, keep=None)
    await retention.start()
    assert await retention.purge() == (0, 0)
    await retention.stop()
    assert await store.get_question(QuestionId("ancient")) is not None


async def test_deletes_in_batches_of_the_size_asked(store: Store) -> None:
    for n in range(7):
        await _ended(store, f"q{n}", days_ago=2)
    before = now_ms() - DAY_MS
    assert [await store.delete_ended(before, 3) for _ in range(4)] == [3, 3, 1, 0]

    for n in range(5):
        await _ended(store, f"p{n}", days_ago=2)
    calls: list[int] = []
    delete = store.delete_ended

    async def counted(before: int, limit: int) -> int:
        calls.append(limit)
        return await delete(before, limit)

    store.delete_ended = counted  # type: ignore[method-assign]
    assert await Retention(store, keep=86_400, batch=2, pause=0).purge() == (5, 0)
    assert calls == [2, 2, 2]  # 2 + 2 + 1: the short batch says there is no more


async def test_event_bodies_go_once_delivered_or_given_up(store: Store) -> None:
    events = [OutboxEvent(f"ev{n}", "https://hooks.example/in", "question.resolved",
                          f'{{"answer": "{SECRET}"}}', 0, now_ms()) for n in range(3)]
    await store.enqueue_events(events)
    await store.event_tried(events[0], done=True, next_at=None, error=None)
    await store.event_tried(events[1], done=False, next_at=None, error="410 Gone")  # given up
    assert await store.delete_old_events(now_ms() - DAY_MS, 10) == 0  # enqueued just now
    assert await store.delete_old_events(now_ms() + 1, 10) == 2
    assert [e.id for e in await store.due_events(now_ms() + 1, 10)] == ["ev2"]  # still to send


@pytest.mark.skipif(server_url() is None, reason="ASKBRIDGE_TEST_POSTGRES_URL=off")
async def test_two_replicas_purging_at_once_delete_each_question_once() -> None:
    async with scratch_database() as url:
        first, second = PostgresStore(url), PostgresStore(url)
        await first.open()
        await second.open()
        try:
            async with first.transaction() as db:  # 600 questions that ended two days ago
                await db.execute(
                    "INSERT INTO questions (id, agent, session, request, status, created_at, "
                    "expires_at, resolved_at) SELECT 'h' || n, 'a', 's' || n, '{}', 'answered', "
                    "?, ?, ? FROM generate_series(1, 600) n", (1, 1, now_ms() - 2 * DAY_MS))
                await db.execute(
                    "INSERT INTO deliveries (question_id, surface, position, state, updated_at) "
                    "SELECT 'h' || n, 'web', 0, 'delivered', 1 FROM generate_series(1, 600) n")
            counts = await asyncio.gather(*(
                Retention(replica, keep=86_400, batch=25, pause=0).purge()
                for replica in (first, second)))
            assert sum(questions for questions, _ in counts) == 600
            assert await first._rows("SELECT COUNT(*) FROM questions") == [(0,)]
        finally:
            await first.close()
            await second.close()


async def test_every_table_keyed_to_a_question_goes_with_it_on_sqlite(tmp_path: Path) -> None:
    """SQLite deletes a batch in one statement, a trigger taking the keyed rows along: a table
    that came to reference questions without joining that trigger (and `KEYED_TO_A_QUESTION`)
    would make every purge fail on its foreign key, or leave its rows behind."""
    store = SqliteStore(str(tmp_path / "store.db"))
    await store.open()
    try:
        referencing = {row[0] for row in await store._rows(
            "SELECT m.name FROM sqlite_master m, pragma_foreign_key_list(m.name) f "
            "WHERE m.type = 'table' AND f.\"table\" = 'questions'")}
        [(trigger,)] = await store._rows(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'questions'")
        assert referencing == set(KEYED_TO_A_QUESTION)
        assert all(f"DELETE FROM {table} WHERE question_id = OLD.id" in trigger
                   for table in KEYED_TO_A_QUESTION)
    finally:
        await store.close()
