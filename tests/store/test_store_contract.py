"""The store contract every backend passes (parametrized over the implementations)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bridge.contract import AskResult, parse_ask_request
from bridge.store import (
    AnsweredBy,
    PendingConflict,
    QuestionRecord,
    Resolution,
    SqliteStore,
    Store,
    now_ms,
)
from bridge.store.postgres import PostgresStore
from bridge.types import AgentName, MessageRef, QuestionId, SessionKey, SurfaceId, UserRef
from tests.harness import until
from tests.pg import scratch_database, server_url

REQUEST = parse_ask_request({"questions": [{
    "id": "env", "header": "Deploy", "question": "Where?",
    "options": [{"label": "Staging"}, {"label": "Production"}]}]})


BACKENDS = ["sqlite", "postgres"] if server_url() else ["sqlite"]


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "sqlite":
        backend: Store = SqliteStore(str(tmp_path / "store.db"))
        await backend.open()
        yield backend
        await backend.close()
        return
    async with scratch_database() as url:
        backend = PostgresStore(url)
        await backend.open()
        yield backend
        await backend.close()


def record(qid: str, session: str = "main", expires_in: int = 60_000) -> QuestionRecord:
    created = now_ms()
    return QuestionRecord(QuestionId(qid), AgentName("a"), SessionKey(session), REQUEST,
                          "pending", created, created + expires_in)


SURFACES = [SurfaceId("web"), SurfaceId("telegram:1")]


def answered(label: str) -> Resolution:
    return Resolution(AskResult.answered({"env": [label]}), f"Deploy: {label}", now_ms(),
                      AnsweredBy(SurfaceId("telegram:1"), UserRef("7")))


async def test_create_and_read_back(store: Store) -> None:
    await store.create_question(record("q1"), SURFACES)
    got = await store.get_question(QuestionId("q1"))
    assert got is not None and got.pending and got.request == REQUEST
    assert [d.state for d in await store.deliveries(QuestionId("q1"))] == ["sending", "sending"]


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
    assert got.result is not None and got.result.answer_map()["env"][0] in {"Staging", "Production"}
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


async def test_partial_answers_kept_until_resolution(store: Store) -> None:
    await store.create_question(record("q1"), SURFACES)
    await store.save_partial(QuestionId("q1"), {"env": ["Staging"]})
    await store.save_partial(QuestionId("q1"), {"env": ["Production"], "x": ["y"]})
    assert await store.partial(QuestionId("q1")) == {"env": ["Production"], "x": ["y"]}
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
