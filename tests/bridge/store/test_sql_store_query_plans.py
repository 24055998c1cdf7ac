"""The answer path reaches every row by a key, never by walking the history: read from each
backend's own query plan for the exact statements the store runs."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bridge.model.ids import MessageRef, QuestionId, SurfaceId
from bridge.store import SqliteStore, now_ms
from bridge.store.postgres_store import PostgresStore, numbered
from bridge.store.sql_store import SqlStore
from tests.bridge.store.support import SURFACES, answered, record
from tests.pg import scratch_database, server_url

KEYS: dict[str, list[set[str]]] = {
    "questions": [{"id"}, {"status"}, {"resolved_at"}],
    "deliveries": [{"question_id"}, {"surface", "message_ref"}],
    "partial_answers": [{"question_id"}],
    "message_refs": [{"surface", "message_ref"}, {"question_id"}],
    "timers": [{"question_id"}],
}
"""Per table, the keys a lookup may use: each narrows it to one question's rows (or to the
pending questions, a handful however long the history). `deliveries (surface)` alone is not
one: it is every prompt ever sent to a conversation."""
PARTIAL = ("deliveries_unfinalized", "questions_ended", "questions_one_pending")
"""Partial indexes: reading one whole reads only the rows it was made for (prompts still to
finalize, ended questions, pending questions), never the rest of the history."""
ALIASES = {"q": "questions", "d": "deliveries", "p": "partial_answers", "t": "timers"}
HISTORY = 5_000
"""Ended questions with a delivery each on the surface under test, so PostgreSQL's planner,
working from real statistics, sees what a long history costs (on a few rows a sequential scan
is rightly the cheapest plan, and would say nothing about the indexes)."""

FILL = [
    "INSERT INTO questions (id, agent, session, request, status, created_at, expires_at, "
    "resolved_at) SELECT 'h' || n, 'a', 'old', '{}', 'answered', n, n, n FROM h",
    "INSERT INTO deliveries (question_id, surface, position, state, message_ref, finalized, "
    "updated_at) SELECT 'h' || n, 'web', 0, 'delivered', 'hm' || n, 1, n FROM h",
    "INSERT INTO message_refs (surface, message_ref, question_id) SELECT 'web', 'hr' || n, 'h' || n "
    "FROM h",
    "INSERT INTO partial_answers (question_id, question_key, answers, updated_at) "
    "SELECT 'h' || n, 'env', '[]', n FROM h",
    "INSERT INTO timers (question_id, kind, seq, due_at, sent_at) SELECT 'h' || n, 'remind', 1, n, n "
    "FROM h",
]


def _with_history(sql: str) -> str:
    return f"WITH RECURSIVE h(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM h WHERE n < {HISTORY}) {sql}"


class _Recording:
    """An executor that notes every statement it is given before running it."""

    def __init__(self, inner: Any, seen: list[tuple[str, tuple[Any, ...]]]) -> None:
        self.inner, self.seen = inner, seen

    async def execute(self, sql: str, args: Any = ()) -> int:
        self.seen.append((sql, tuple(args)))
        return int(await self.inner.execute(sql, args))

    async def executemany(self, sql: str, args: Any) -> None:
        await self.inner.executemany(sql, args)  # inserts: nothing to look up

    async def rows(self, sql: str, args: Any = ()) -> list[Any]:
        self.seen.append((sql, tuple(args)))
        return list(await self.inner.rows(sql, args))


def _record(store: SqlStore, seen: list[tuple[str, tuple[Any, ...]]]) -> None:
    for name in ("_read", "_alone", "_tx"):
        original = getattr(store, name)

        @asynccontextmanager
        async def recording(original: Any = original) -> AsyncIterator[_Recording]:
            async with original() as db:
                yield _Recording(db, seen)

        setattr(store, name, recording)


async def _answer_path(store: SqlStore) -> list[tuple[str, tuple[Any, ...]]]:
    """What a reply, an edit, a tap and a finished question make the store run, and a retention
    pass."""
    web, q1 = SurfaceId("web"), QuestionId("q1")
    await store.create_question(record("q1"), SURFACES)
    await store.set_delivery(q1, web, "delivered", MessageRef("m1"))
    await store.note_reminder(q1, web, MessageRef("r1"))
    seen: list[tuple[str, tuple[Any, ...]]] = []
    _record(store, seen)
    assert [r.id for r in await store.pending_on_surface(web, limit=2)] == ["q1"]
    assert await store.pending_on_surface(web, "sending", limit=1) == []
    for ref in ("m1", "r1"):
        found = await store.find_delivery(web, MessageRef(ref))
        assert found is not None and found.question_id == q1
    await store.note_replaced(q1, web, MessageRef("m1"), "aa")  # an approval's edit
    assert await store.replaced_shown(web, MessageRef("r1")) == "aa"  # a reply's check
    assert await store.get_question(q1) is not None
    assert len(await store.deliveries(q1)) == 2
    await store.save_partial(q1, {"deploy_target": ["Staging"]})
    assert await store.partial(q1) == {"deploy_target": ["Staging"]}
    assert await store.resolve(q1, answered("Staging"))
    assert await store.claim_finalization(q1, web, 60_000)
    assert await store.mark_finalized(q1, web)
    assert await store.unfinalized() == []
    assert await store.delete_ended(now_ms() - 86_400_000, 100) == 100  # of the history
    return [(sql, args) for sql, args in seen if not sql.lstrip().upper().startswith("INSERT")]


def _sqlite_accesses(plan: list[Any]) -> Iterator[tuple[str, str, set[str]]]:
    """(table, plan line, columns its key constrains) for each table the plan reads."""
    for *_, detail in plan:
        found = re.match(r"(SCAN|SEARCH) (\w+)", detail)
        if found:
            table = ALIASES.get(found.group(2), found.group(2))
            key = re.search(r"\((.*)\)$", detail) if found.group(1) == "SEARCH" else None
            yield table, detail, set(re.findall(r"(\w+)[=<>]", key.group(1) if key else ""))


def _pg_accesses(node: dict[str, Any]) -> Iterator[tuple[str, str, set[str]]]:
    cond = node.get("Index Cond", "") + "".join(
        child.get("Index Cond", "") for child in node.get("Plans", [])
        if child["Node Type"] == "Bitmap Index Scan")
    if "Relation Name" in node and node["Node Type"] != "ModifyTable":  # a write, not a read
        keyed = node["Node Type"] in ("Index Scan", "Index Only Scan", "Bitmap Heap Scan")
        yield (node["Relation Name"],
               f"{node['Node Type']} on {node['Relation Name']} {node.get('Index Name', '')} {cond}",
               set(re.findall(r"(\w+) (?:=|<|>)", cond)) if keyed else set())
    for child in node.get("Plans", []):
        if child["Node Type"] != "Bitmap Index Scan":
            yield from _pg_accesses(child)


def _unkeyed(accesses: Iterator[tuple[str, str, set[str]]]) -> list[str]:
    return [line for table, line, columns in accesses
            if table in KEYS and not any(key <= columns for key in KEYS[table])
            and not any(index in line for index in PARTIAL)]


async def test_sqlite_reaches_every_row_by_a_key(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "plans.db"))
    await store.open()
    try:
        for sql in FILL:
            await store.db.execute(_with_history(sql))
        statements = await _answer_path(store)
        assert len(statements) >= 12
        for sql, args in statements:
            plan = list(await store.db.execute_fetchall("EXPLAIN QUERY PLAN " + sql, args))
            assert not _unkeyed(_sqlite_accesses(plan)), (sql, plan)
    finally:
        await store.close()


@pytest.mark.skipif(server_url() is None, reason="ASKBRIDGE_TEST_POSTGRES_URL=off")
async def test_postgres_reaches_every_row_by_a_key() -> None:
    async with scratch_database() as url:
        store = PostgresStore(url)
        await store.open()
        conn = await asyncpg.connect(url)
        try:
            for sql in FILL:
                await conn.execute(_with_history(sql))
            await conn.execute("ANALYZE")
            # With statistics the planner chooses among indexes as on a real history; on a table
            # of a few thousand rows a sequential scan can still be rightly cheaper than a
            # hundred index probes (a retention batch). Switched off, it is taken only where no
            # index fits the predicate: exactly what this test looks for.
            await conn.execute("SET enable_seqscan = off")
            statements = await _answer_path(store)
            assert len(statements) >= 12
            for sql, args in statements:
                [plan] = json.loads(await conn.fetchval(
                    "EXPLAIN (FORMAT JSON) " + numbered(sql), *args))
                assert not _unkeyed(_pg_accesses(plan["Plan"])), (sql, plan)
        finally:
            await conn.close()
            await store.close()
