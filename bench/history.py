"""History and retention, on both stores: the answer path with 100 vs 100,000 past deliveries in
one conversation, and the ask path between vs during the passes of a retention that deletes
100,000 ended questions.

Both run the store and the core's `Retention` in this process, on one event loop: a store call
or a purge that held the loop or the write lock would show in the latencies measured beside it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import cast

from bench.latency import ask_body
from bench.pg import scratch_db
from bench.stats import Report, Samples, verdict
from bench.store import ask_record
from bridge.core.retention import Retention
from bridge.model.contract import AskResult
from bridge.model.ids import MessageRef, SurfaceId
from bridge.model.validation import parse_ask_request
from bridge.store.postgres_store import PostgresStore
from bridge.store.protocol import Store
from bridge.store.records import Resolution, now_ms
from bridge.store.sqlite_store import SqliteStore

HISTORY_RATIO, RETENTION_RATIO = 1.1, 1.5
Backend = SqliteStore | PostgresStore
CHAT = SurfaceId("telegram:777")
DAY_MS = 86_400_000
REQUEST = parse_ask_request(ask_body("history"))
ANSWERED = Resolution(AskResult.answered({"q1": ["yes"]}), "Q: yes", 0)


def _fill(n: int, ended_at: int) -> list[str]:
    """`n` answered questions, each with a finalized delivery in CHAT and a reminder message."""
    rows = (f"WITH RECURSIVE h(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM h WHERE n < {n}) ")
    return [
        rows + "INSERT INTO questions (id, agent, session, request, status, created_at, "
        f"expires_at, resolved_at) SELECT 'h' || n, 'bench', 'chat', '{{}}', 'answered', "
        f"{ended_at}, {ended_at}, {ended_at} FROM h",
        rows + "INSERT INTO deliveries (question_id, surface, position, state, message_ref, "
        f"finalized, updated_at) SELECT 'h' || n, '{CHAT}', 0, 'delivered', 'hm' || n, 1, "
        f"{ended_at} FROM h",
        rows + "INSERT INTO message_refs (surface, message_ref, question_id) "
        f"SELECT '{CHAT}', 'hr' || n, 'h' || n FROM h",
        rows + "INSERT INTO partial_answers (question_id, question_key, answers, updated_at) "
        f"SELECT 'h' || n, 'q1', '[\"some words\"]', {ended_at} FROM h",
    ]


@contextlib.asynccontextmanager
async def _opened(kind: str, tmp: Path, name: str, past: int,
                  ended_at: int) -> AsyncIterator[Backend]:
    """A store of `kind` holding `past` ended questions of one conversation."""
    async with contextlib.AsyncExitStack() as stack:
        if kind == "sqlite":
            store: Backend = SqliteStore(str(tmp / f"{name}.db"))
        else:
            store = PostgresStore(await stack.enter_async_context(scratch_db(name)))
        await store.open()
        stack.push_async_callback(store.close)
        async with store._tx() as db:
            for statement in _fill(past, ended_at):
                await db.execute(statement)
        if kind == "postgres":  # what autovacuum's analyze does soon after a bulk load
            async with store._read() as db:
                await db.execute("ANALYZE")
        yield store


async def _answer(store: Backend, i: int) -> float:
    """One question asked in CHAT and answered by a reply to its prompt; ms of the answer's
    store calls (what the receiver and the broker's resolve make)."""
    record = ask_record(REQUEST, i)
    await store.create_question(record, [CHAT])
    await store.set_delivery(record.id, CHAT, "delivered", MessageRef(f"m{i}"))
    began = time.perf_counter()
    await store.pending_on_surface(CHAT, "sending", limit=1)
    await store.pending_on_surface(CHAT, limit=2)
    found = await store.find_delivery(CHAT, MessageRef(f"m{i}"))
    assert found is not None and found.question_id == record.id
    await store.get_question(record.id)
    await store.partial(record.id)
    await store.resolve(record.id, Resolution(ANSWERED.result, ANSWERED.summary, now_ms()))
    return (time.perf_counter() - began) * 1000


@contextlib.contextmanager
def one_core() -> Iterator[None]:
    """This thread, and every thread it starts meanwhile, on one CPU core.

    Each SQLite store has its own aiosqlite thread, and a store call is a hop to it and back:
    where the scheduler happens to put that thread decides the hop's cost (on a 2-core machine
    a call took 57 or 110 µs, run to run, whatever the data). Unpinned, the two stores' threads
    land apart by luck and the ratio measures that: 1.5-2.3× in some runs, 0.9× in others, with
    a 100,000-row store no slower than a 100-row one at the same placement. On one core every
    hop is alike, and the ratio is the data's."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


async def run_history(kind: str, tmp: Path, rounds: int) -> dict[str, Samples]:
    """Rounds alternate between the two stores, so the machine's noise falls on both alike;
    the stores' threads share this one's core (`one_core`)."""
    with one_core():
        return await _run_history(kind, tmp, rounds)


async def _run_history(kind: str, tmp: Path, rounds: int) -> dict[str, Samples]:
    found = {"small": Samples("100"), "large": Samples("100000")}
    async with _opened(kind, tmp, f"history_{kind}_small", 100, now_ms()) as small, \
            _opened(kind, tmp, f"history_{kind}_large", 100_000, now_ms()) as large:
        for i in range(rounds + 20):
            for key, store in (("small", small), ("large", large)):
                took = await _answer(store, i)
                if i >= 20:  # warm-up: caches, prepared statements
                    found[key].add(took)
    return found


async def _asks(store: Backend, samples: Samples, go_on: Callable[[int], bool],
                start: int) -> int:
    """Asks one after another (commit, then its prompt recorded) while `go_on(count)`."""
    i = start
    while go_on(i - start):
        record = ask_record(REQUEST, i)
        began = time.perf_counter()
        await store.create_question(record, [CHAT])
        await store.set_delivery(record.id, CHAT, "delivered", MessageRef(f"m{i}"))
        samples.add((time.perf_counter() - began) * 1000)
        i += 1
    return i


class _Gated:
    """The store, its retention batches refused while `shut`: the core's own `Retention` pass
    then ends as if nothing were left, and a new pass carries on later. (A pass held at a gate
    between two batches would count the wait in the batch's time, and step aside as long.)"""

    def __init__(self, store: Backend) -> None:
        self._store = store
        self.shut = self.refused = False

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)

    async def delete_ended(self, before: int, limit: int) -> int:
        if self.shut:
            self.refused = True
            return 0
        return await self._store.delete_ended(before, limit)


async def run_retention(kind: str, tmp: Path, before_s: float, purging_s: float = 2.0,
                        parked_s: float = 0.5) -> dict[str, object]:
    """Asks for `before_s` seconds, then on while 100,000 ended questions are deleted, in
    turns: a retention pass runs for `purging_s`, then none for `parked_s` (`_Gated`, no batch
    in flight), and so on. The asks of the parked turns are timed alongside the ones during the
    purge, in the same minutes: the p99 of the seconds before alone drifts with the machine
    (round 20)."""
    before, during, parked = Samples("before"), Samples("during"), Samples("parked")
    async with _opened(kind, tmp, f"retention_{kind}", 100_000, now_ms() - 2 * DAY_MS) as store:
        n = await _asks(store, before, _for(before_s), 0)
        gate, deleted, began = _Gated(store), 0, time.monotonic()
        while True:
            gate.shut = gate.refused = False
            purge = asyncio.create_task(Retention(cast(Store, gate), keep=86_400).purge())
            n = await _asks(store, during, _for(purging_s, purge), n)
            gate.shut = True
            deleted += (await purge)[0]
            if not gate.refused:  # the pass ran out of ended questions on its own
                break
            n = await _asks(store, parked, _for(parked_s), n)
        seconds = time.monotonic() - began
    return {"before": before, "during": during, "parked": parked, "deleted": deleted,
            "seconds": seconds}


def _for(seconds: float, purge: asyncio.Task[tuple[int, int]] | None = None,
         ) -> Callable[[int], bool]:
    """Go on for `seconds` from now, or until `purge` is done."""
    until = time.monotonic() + seconds
    return lambda _: time.monotonic() < until and (purge is None or not purge.done())


async def _each(kinds: list[str], run: Callable[[str], Awaitable[None]]) -> None:
    for kind in kinds:
        await run(kind)


async def history_bench(report: Report, tmp: Path, kinds: list[str], rounds: int,
                        before_s: float) -> None:
    async def history(kind: str) -> None:
        s = await run_history(kind, tmp, rounds)
        ratio = s["large"].median / s["small"].median
        report.emit(f"history_{kind}", small=s["small"].summary(), large=s["large"].summary(),
                    ratio=round(ratio, 3))
        report.row(f"answer path, {kind}: 100 / 100,000 past deliveries (median)",
                   f"{s['small'].median:.2f} / {s['large'].median:.2f} ms = {ratio:.2f}×",
                   f"≤ {HISTORY_RATIO}×", verdict(ratio <= HISTORY_RATIO))

    async def retention(kind: str) -> None:
        r = await run_retention(kind, tmp, before_s)
        before, during, parked = r["before"], r["during"], r["parked"]
        assert isinstance(before, Samples) and isinstance(during, Samples)
        assert isinstance(parked, Samples)
        ratio, apart = during.p99 / parked.p99, during.p99 / before.p99
        seconds = float(str(r["seconds"]))
        report.emit(f"retention_{kind}", before=before.summary(), during=during.summary(),
                    parked=parked.summary(), deleted=r["deleted"], seconds=round(seconds, 1),
                    ratio_p99=round(ratio, 3), ratio_p99_before=round(apart, 3))
        report.row(f"ask path, {kind}: p99 between / during passes deleting {r['deleted']:,}",
                   f"{parked.p99:.2f} / {during.p99:.2f} ms = {ratio:.2f}× ({len(parked.values)}"
                   f" / {len(during.values)} asks, in turns over {seconds:.0f} s)",
                   f"≤ {RETENTION_RATIO}×", verdict(ratio <= RETENTION_RATIO))
        report.row(f"ask path, {kind}: p99 before the purge / deleting (apart in time)",
                   f"{before.p99:.2f} / {during.p99:.2f} ms = {apart:.2f}×", "", "")

    await _each(kinds, history)
    await _each(kinds, retention)
