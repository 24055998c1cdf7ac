"""The store contract every backend passes (parametrized over the implementations)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bridge.model.contract import AskResult
from bridge.model.ids import AgentName, MessageRef, QuestionId, SessionKey, SurfaceId
from bridge.store import (
    PendingConflict,
    Resolution,
    SqliteStore,
    Store,
    now_ms,
)
from bridge.store.postgres_store import PostgresStore
from bridge.store.records import DeliveryRecord, OutboxEvent, QuestionRecord, TimerRecord
from bridge.store.sql_store import SqlStore
from tests.bridge.store.support import REQUEST, SURFACES, answered, record
from tests.harness import until


async def test_create_and_read_back(store: Store) -> None:
    await store.create_question(record("q1"), SURFACES)
    got = await store.get_question(QuestionId("q1"))
    assert got is not None and got.pending and got.request == REQUEST
    assert [(d.surface, d.state) for d in await store.deliveries(QuestionId("q1"))] == [
        ("web", "sending"), ("telegram:1", "sending")]  # in the order given


async def test_one_pending_per_session(store: Store) -> None:
    await store.create_question(record("q1"), SURFACES)
    with pytest.raises(PendingConflict):
        await store.create_question(record("q2"), SURFACES)
    await store.create_question(record("q3", session="other"), SURFACES)
    assert await store.resolve(QuestionId("q1"), answered("Staging"))
    await store.create_question(record("q2"), SURFACES)


async def test_resolve_is_compare_and_set(store: Store) -> None:
    await store.create_question(record("q1"), SURFACES)
    results = await asyncio.gather(*(store.resolve(QuestionId("q1"), answered(label))
                                     for label in ["Staging", "Production"] * 10))
    assert results.count(True) == 1
    got = await store.get_question(QuestionId("q1"))
    assert got is not None and got.status == "answered" and got.answered_by is not None
    assert got.result is not None and got.result.answer_map()["deploy_target"][0] in {"Staging", "Production"}
    assert not await store.resolve(
        QuestionId("q1"), Resolution(AskResult.no_answer("cancelled"), "Cancelled", now_ms()))


async def test_deliveries_refs_and_finalization_once(store: Store) -> None:
    await store.create_question(record("q1"), SURFACES)
    await store.set_delivery(QuestionId("q1"), SurfaceId("telegram:1"), "delivered",
                             MessageRef("1:55"))
    await store.set_delivery(QuestionId("q1"), SurfaceId("web"), "failed", None, "down")
    found = await store.find_delivery(SurfaceId("telegram:1"), MessageRef("1:55"))
    assert found is not None and found.question_id == "q1"
    assert [r.id for r in await store.pending_on_surface(SurfaceId("telegram:1"))] == ["q1"]
    assert await store.pending_on_surface(SurfaceId("web")) == []
    assert await store.unfinalized() == []
    await store.resolve(QuestionId("q1"), answered("Staging"))
    assert [d.surface for d in await store.unfinalized()] == ["telegram:1"]
    claims = await asyncio.gather(*(store.mark_finalized(QuestionId("q1"), SurfaceId("telegram:1"))
                                    for _ in range(5)))
    assert claims.count(True) == 1
    assert await store.unfinalized() == []


async def test_a_write_failing_halfway_leaves_nothing_and_lone_writes_meanwhile_stay(
    store: Store,
) -> None:
    """A write of several statements is one transaction; a one-statement write sent while it
    is open neither joins it nor is rolled back with it."""
    await store.create_question(record("q1"), SURFACES)
    due = now_ms() + 60_000
    twice = [TimerRecord(QuestionId("q2"), "remind", 1, due)] * 2  # the timers' insert fails
    outcomes = await asyncio.gather(
        store.create_question(record("q2", session="other"), SURFACES, twice),
        store.set_delivery(QuestionId("q1"), SurfaceId("web"), "delivered", MessageRef("m1")),
        store.claim_finalization(QuestionId("q1"), SurfaceId("telegram:1"), 60_000),
        return_exceptions=True)
    assert isinstance(outcomes[0], Exception) and outcomes[2] is True
    assert await store.get_question(QuestionId("q2")) is None
    assert await store.deliveries(QuestionId("q2")) == []
    assert await store.timers_of(QuestionId("q2")) == []
    web = (await store.deliveries(QuestionId("q1")))[0]
    assert (web.state, web.message_ref) == ("delivered", "m1")
    assert not await store.claim_finalization(QuestionId("q1"), SurfaceId("telegram:1"), 60_000)


async def doomed_transaction(store: Store, *statements: str) -> asyncio.Task[None]:
    """A transaction that runs `statements` (each about "q1"), stays open 0.1 s and then fails;
    returned once open, so what the caller sends next is sent while it is."""
    assert isinstance(store, SqlStore)
    opened = asyncio.Event()

    async def doomed() -> None:
        async with store.transaction() as db:
            for statement in statements:
                await db.execute(statement, ("q1",))
            opened.set()
            await asyncio.sleep(0.1)
            raise RuntimeError("halfway")

    task = asyncio.create_task(doomed())
    await asyncio.wait([task, asyncio.create_task(opened.wait())],
                       return_when=asyncio.FIRST_COMPLETED)
    assert opened.is_set(), task
    return task


DOOMED_ERROR = "UPDATE deliveries SET error = 'doomed' WHERE question_id = ?"


async def test_a_transaction_stays_whole_while_lone_writes_come_and_go(store: Store) -> None:
    """Lone writes run side by side (on SQLite, back to back on one connection); one sent while
    a transaction is open neither joins it nor is rolled back with it."""
    await store.create_question(record("q1"), SURFACES)
    task = await doomed_transaction(store, DOOMED_ERROR)
    outcomes = await asyncio.gather(
        task, store.set_delivery(QuestionId("q1"), SurfaceId("web"), "delivered", MessageRef("m1")),
        *(store.claim_finalization(QuestionId("q1"), SurfaceId("telegram:1"), 60_000)
          for _ in range(3)), return_exceptions=True)
    assert isinstance(outcomes[0], RuntimeError)
    assert outcomes[2:].count(True) == 1  # side by side, and still claimed once
    web, telegram = await store.deliveries(QuestionId("q1"))
    assert (web.state, web.message_ref, web.error) == ("delivered", "m1", None)
    assert telegram.error is None


async def test_a_read_sent_while_a_transaction_is_open_never_sees_its_rows(store: Store) -> None:
    """Nothing reads a transaction's rows before its commit: not a half-made question, not a
    write it then rolls back (on SQLite's one connection a read sent meanwhile did)."""
    await store.create_question(record("q1"), SURFACES)
    task = await doomed_transaction(
        store, DOOMED_ERROR, "UPDATE questions SET status = 'no_answer' WHERE id = ?")
    outcomes = await asyncio.gather(task, store.deliveries(QuestionId("q1")),
                                    store.get_question(QuestionId("q1")),
                                    store.pending_questions(), return_exceptions=True)
    assert isinstance(outcomes[0], RuntimeError)
    deliveries, question, pending = outcomes[1:]
    assert isinstance(deliveries, list) and [d.error for d in deliveries] == [None, None]
    assert isinstance(question, QuestionRecord) and question.pending
    assert isinstance(pending, list) and [q.id for q in pending] == ["q1"]


async def test_partial_answers_kept_until_resolution(store: Store) -> None:
    await store.create_question(record("q1"), SURFACES)
    await store.save_partial(QuestionId("q1"), {"deploy_target": ["Staging"]})
    await store.save_partial(QuestionId("q1"), {"deploy_target": ["Production"], "x": ["y"]})
    assert await store.partial(QuestionId("q1")) == {"deploy_target": ["Production"], "x": ["y"]}
    await store.resolve(QuestionId("q1"), answered("Staging"))
    assert await store.partial(QuestionId("q1")) == {}


async def test_timeline_and_sessions(store: Store) -> None:
    for i in range(3):
        await store.create_question(record(f"q{i}"), SURFACES)
        await store.resolve(QuestionId(f"q{i}"), answered("Staging"))
    await store.create_question(record("q9", session="s2"), SURFACES)
    line = await store.timeline(AgentName("a"), SessionKey("main"))
    assert [r.id for r in line] == ["q2", "q1", "q0"]
    assert line[0].summary == "Deploy: Staging"
    sessions = {s.session: s.pending for s in await store.sessions(AgentName("a"))}
    assert sessions == {"main": 0, "s2": 1}


async def test_pending_survives_reopen(store: Store) -> None:
    rec = record("q1")
    await store.create_question(rec, SURFACES)
    await store.set_delivery(QuestionId("q1"), SurfaceId("web"), "delivered", MessageRef("q1"))
    await store.close()
    await store.open()  # migrations run again and find nothing to do
    pending = await store.pending_questions()
    assert [(p.id, p.expires_at) for p in pending] == [("q1", rec.expires_at)]
    assert [(d.surface, d.state) for d in await store.pending_deliveries()] == [
        ("web", "delivered"), ("telegram:1", "sending")]


async def test_exactly_one_leader_and_takeover_when_it_goes(store: Store) -> None:
    assert await store.try_lead()
    assert await store.try_lead()  # holding stays true
    if not isinstance(store, PostgresStore):
        return  # one process: always the leader
    other = PostgresStore(store.url)
    await other.open()
    try:
        assert not await other.try_lead()
        await store.close()  # the holder dies: the database frees its lock
        assert await until(other.try_lead, timeout=5)
    finally:
        await other.close()
        await store.open()


async def test_other_processes_hear_each_change_once_and_nothing_of_a_lost_one(
    store: Store,
) -> None:
    if not isinstance(store, PostgresStore):
        return  # one process: nobody else to tell
    other = PostgresStore(store.url)
    await other.open()
    heard: list[tuple[str, QuestionId]] = []
    await other.listen(lambda event, qid: heard.append((event, qid)))
    try:
        q1 = QuestionId("q1")
        await store.create_question(record("q1"), SURFACES)
        await store.set_delivery(q1, SurfaceId("web"), "delivered", MessageRef("m1"))
        assert await store.resolve(q1, answered("Staging"))
        assert not await store.resolve(q1, answered("Production"))  # lost: nothing to tell
        await store.create_question(record("q2"), SURFACES)  # q1 ended: the session is free
        with pytest.raises(PendingConflict):  # refused: nothing to tell
            await store.create_question(record("q3"), SURFACES)
        # a last change, heard after anything the lost resolve or the refused ask had said
        await store.set_delivery(QuestionId("q2"), SurfaceId("web"), "delivered", MessageRef("m2"))
        expected = [("created", q1), ("delivery", q1), ("resolved", q1),
                    ("created", QuestionId("q2")), ("delivery", QuestionId("q2"))]
        await until(lambda: len(heard) >= len(expected), timeout=5)
        assert heard == expected
    finally:
        await other.close()


async def test_deliveries_of_many_questions_in_one_read(store: Store) -> None:
    for i in range(3):
        await store.create_question(record(f"q{i}", session=f"s{i}"), SURFACES)
    found = await store.deliveries_for([QuestionId("q2"), QuestionId("q0"), QuestionId("nope")])
    assert list(found) == ["q2", "q0", "nope"]
    assert [d.surface for d in found[QuestionId("q0")]] == ["web", "telegram:1"]
    assert found[QuestionId("nope")] == []
    assert await store.deliveries_for([]) == {}


async def test_adapter_state_is_kept_per_platform_and_found_by_prefix(store: Store) -> None:
    assert await store.state_get("matrix", "next_batch") is None
    await store.state_put("matrix", "next_batch", "s1")
    await store.state_put("matrix", "next_batch", "s2")  # replaces, never duplicates
    await store.state_put("web", "push:b", "{}")
    await store.state_put("web", "push:a", "{}")
    await store.state_put("web", "pushed", "x")
    await store.state_put("web", "other", "y")
    assert await store.state_get("matrix", "next_batch") == "s2"
    assert await store.state_get("web", "next_batch") is None
    assert [k for k, _ in await store.state_items("web", "push:")] == ["push:a", "push:b"]
    assert len(await store.state_items("web")) == 4
    assert await store.state_delete("web", "push:a") is True
    assert await store.state_delete("web", "push:a") is False
    assert [k for k, _ in await store.state_items("web", "push:")] == ["push:b"]


async def test_a_new_value_is_kept_only_by_the_first_writer(store: Store) -> None:
    """How replicas agree on one MCP requestState key: whoever writes first, all read it."""
    kept = await asyncio.gather(*(store.state_put_new("mcp", "key", f"k{i}") for i in range(5)))
    assert len(set(kept)) == 1 and kept[0] == await store.state_get("mcp", "key")
    assert await store.state_put_new("mcp", "key", "later") == kept[0]


async def test_timers_are_stored_with_the_question_and_claimed_once(store: Store) -> None:
    q = record("q1")
    timers = [TimerRecord(q.id, "remind", 1, q.created_at + 1000),
              TimerRecord(q.id, "escalate", 1, q.created_at + 2000)]
    await store.create_question(q, SURFACES, timers)
    assert await store.open_timers() == timers
    assert await store.timers_of(q.id) == timers
    claims = await asyncio.gather(*(store.claim_timer(timers[0], 60_000) for _ in range(5)))
    assert claims.count(True) == 1
    assert await store.claim_timer(timers[0], 0)  # a lapsed lease (a crash) can be taken again
    await store.timer_done(timers[0])
    assert not await store.claim_timer(timers[0], 0)
    assert await store.open_timers() == timers[1:]
    await store.resolve(q.id, answered("Staging"))
    assert await store.open_timers() == []  # only pending questions' timers


async def test_escalation_deliveries_and_reminder_refs(store: Store) -> None:
    await store.create_question(record("q1"), SURFACES)
    added = await store.add_deliveries(QuestionId("q1"),
                                       [SurfaceId("web"), SurfaceId("slack:C1")], tier=1)
    assert added == ["slack:C1"]  # already a surface of the question: not added twice
    await store.set_delivery(QuestionId("q1"), SurfaceId("slack:C1"), "delivered",
                             MessageRef("C1/1.5"))
    by_surface: dict[str, DeliveryRecord] = {
        d.surface: d for d in await store.deliveries(QuestionId("q1"))}
    assert by_surface["slack:C1"].tier == 1 and by_surface["web"].tier == 0
    assert by_surface["slack:C1"].delivered_at is not None
    assert by_surface["web"].delivered_at is None
    await store.note_reminder(QuestionId("q1"), SurfaceId("slack:C1"), MessageRef("C1/2.5"))
    found = await store.find_delivery(SurfaceId("slack:C1"), MessageRef("C1/2.5"))
    assert found is not None and found.question_id == "q1" and found.reminders == 1
    assert await store.find_delivery(SurfaceId("web"), MessageRef("C1/2.5")) is None


async def test_outbox_keeps_events_until_delivered_or_given_up(store: Store) -> None:
    now = now_ms()
    events = [OutboxEvent("e1", "http://a", "question.created", "{}", 0, now),
              OutboxEvent("e1", "http://b", "question.created", "{}", 0, now),
              OutboxEvent("e2", "http://a", "question.resolved", "{}", 0, now + 60_000)]
    await store.enqueue_events(events)
    await store.enqueue_events(events[:1])  # at-least-once producers may repeat: kept once
    due = await store.due_events(now, 10)
    assert [(e.id, e.url) for e in due] == [("e1", "http://a"), ("e1", "http://b")]
    claims = await asyncio.gather(*(store.claim_event(due[0], now + 30_000) for _ in range(4)))
    assert claims.count(True) == 1
    await store.event_tried(due[0], done=True, next_at=None, error=None)
    await store.event_tried(due[1], done=False, next_at=None, error="HTTP 500")  # given up
    assert await store.due_events(now + 120_000, 10) == [events[2]]
    assert await store.next_event_at() == now + 60_000


async def test_a_finalization_claim_lapses_or_is_released_until_the_edit_is_done(
        store: Store) -> None:
    qid, surface = QuestionId("q1"), SurfaceId("telegram:1")
    await store.create_question(record("q1"), SURFACES)
    await store.set_delivery(qid, surface, "delivered", MessageRef("1:55"))
    await store.resolve(qid, answered("Staging"))
    claims = await asyncio.gather(*(store.claim_finalization(qid, surface, 60_000)
                                    for _ in range(5)))
    assert claims.count(True) == 1
    # its claimer died before the edit: still unfinalized, taken again once the lease lapsed
    assert [d.surface for d in await store.unfinalized()] == [surface]
    assert not await store.claim_finalization(qid, surface, 60_000)
    assert await store.claim_finalization(qid, surface, 0)
    assert await store.release_finalization_claims() == 1  # a single process's restart
    assert await store.claim_finalization(qid, surface, 60_000)
    assert await store.mark_finalized(qid, surface)
    assert not await store.claim_finalization(qid, surface, 0)  # done is done
    assert await store.unfinalized() == []


async def test_sqlite_checkpoints_beside_the_writes_and_keeps_the_wal_bounded(
        tmp_path: Path) -> None:
    """SQLite: the writer's automatic checkpoints are off; a second connection copies the WAL
    into the database while asks go on, and the writer catches up once the WAL grows past the
    limit, so the WAL starts over instead of growing for as long as writes keep coming."""
    path, wal = tmp_path / "store.db", tmp_path / "store.db-wal"
    store = SqliteStore(str(path))
    store.CHECKPOINT_EVERY, store.WAL_FRAMES_MAX = 20, 100
    await store.open()
    try:
        [(autocheckpoint,)] = await store.db.execute_fetchall("PRAGMA wal_autocheckpoint")
        assert autocheckpoint == 0
        asks = 600  # ~10 WAL pages each: 24 MB of WAL if it never started over
        running, overlapped = None, 0
        for i in range(asks):
            await store.create_question(record(f"q{i}", session=f"s{i}"), SURFACES)
            # Writes go on while a side checkpoint runs, but at most 30 of them: on a loaded
            # machine its fsync can take long enough for any WAL size, and that is timing,
            # not the catch-up under test (without it the WAL never starts over: 24 MB).
            task = store._checkpoint if store._checkpoint and not store._checkpoint.done() else None
            overlapped = overlapped + 1 if task is not None and task is running else 0
            running = task
            if running is not None and overlapped >= 30:
                await running
            if i == asks // 2:  # checkpoints copied pages into the database file (4 KB without)
                assert path.stat().st_size > 50 * 4096
        await until(lambda: store._checkpoint is None or store._checkpoint.done())
        assert wal.stat().st_size < 4_000_000
    finally:
        await store.close()
    assert not wal.exists() or wal.stat().st_size == 0  # closing folds the WAL in
    reopened = SqliteStore(str(path))
    await reopened.open()
    try:
        assert len(await reopened.pending_questions()) == asks
    finally:
        await reopened.close()


async def test_sqlite_statements_held_back_by_a_transaction_all_go_when_it_ends(
        tmp_path: Path) -> None:
    """Lone statements that arrived while a transaction was open are all sent in the loop
    turn after it ends, not let through one turn after another: under load thousands queued
    that way, and an ask's commit waited behind them for seconds."""
    store = SqliteStore(str(tmp_path / "store.db"))
    await store.open()
    try:
        waiting = 500
        async with store.transaction() as tx:  # an open transaction holds every lone statement back
            await tx.execute("INSERT INTO schema_version VALUES (999)")
            asks = [asyncio.create_task(store.create_question(record(f"q{i}", session=f"s{i}"),
                                                              SURFACES))
                    for i in range(waiting)]
            await asyncio.sleep(0)
            assert store.lone_in_flight == 0
        await asyncio.sleep(0)  # one turn
        assert store.lone_in_flight == waiting
        await asyncio.gather(*asks)
        assert len(await store.pending_questions()) == waiting
    finally:
        await store.close()
