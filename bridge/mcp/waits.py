"""How long a question waits for its MCP host, per revision.

2025-11-25 (§3): the call's stream closed for `grace` seconds, its session deleted, or the request
cancelled: the question is cancelled. 2026-07-28 has no session, and a broken stream is not a
stop (the host re-issues the call, maybe on another replica): the question is cancelled only when
no `ask_user` call has waited on it for `[mcp] reattach_seconds`. Every waiting call, on any
replica, writes a heartbeat to the store; the replica whose call ended unanswered watches, and
cancels once the newest heartbeat is that old."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable
from typing import Any

import structlog

from bridge.core.blocking_ask import abandon, first_outcome
from bridge.core.broker import Broker
from bridge.model.contract import AskResult
from bridge.model.ids import QuestionId
from bridge.store.records import QuestionRecord, now_ms

log = structlog.get_logger("askbridge.mcp")
PLATFORM = "mcp"
"""The store's key/value namespace for MCP's own durable state."""


def _beat_key(question_id: QuestionId) -> str:
    return f"waiting:{question_id}"


class Restarting(Exception):
    """The server is stopping gracefully; the question stays pending for the next call."""


class Waits:
    def __init__(self, broker: Broker, reattach_seconds: float = 60.0) -> None:
        self.broker = broker
        self.reattach = reattach_seconds
        self.beat = min(10.0, reattach_seconds / 4)
        self._here: Counter[QuestionId] = Counter()
        self._watched: set[QuestionId] = set()
        self._watchers: set[asyncio.Task[None]] = set()

    async def close(self) -> None:
        """The server stops: stop watching (a graceful stop cancels no question)."""
        for task in set(self._watchers):
            task.cancel()
        await asyncio.gather(*self._watchers, return_exceptions=True)

    async def handshake_era(self, record: QuestionRecord, gone: Awaitable[Any]) -> AskResult:
        """2025-11-25: until the end, or until the call is cancelled or `gone` (its stream
        closed for good): then the question is cancelled (a committed answer still wins)."""
        broker = self.broker
        try:
            outcome, final = await first_outcome(broker, record, gone)
        except asyncio.CancelledError:
            if not broker.draining.is_set():
                await asyncio.shield(abandon(broker, record, "request_cancelled"))
            raise
        if outcome == "gone":
            final = await abandon(broker, record, "client_disconnected")
        return self._result(outcome, final)

    async def stateless_era(self, record: QuestionRecord) -> AskResult:
        """2026-07-28: until the end; a call cut short leaves the question to its watcher."""
        qid = record.id
        self._here[qid] += 1
        beating = asyncio.create_task(self._beat(qid))
        try:
            outcome, final = await first_outcome(self.broker, record, asyncio.Event().wait())
        except asyncio.CancelledError:
            if not self.broker.draining.is_set() and qid not in self._watched:
                self._watched.add(qid)
                watcher = asyncio.create_task(self._watch(qid))
                self._watchers.add(watcher)
                watcher.add_done_callback(self._watchers.discard)
            raise
        finally:
            beating.cancel()
            self._here[qid] -= 1
            if self._here[qid] <= 0:
                del self._here[qid]
        if not final.pending and qid not in self._watched:  # ended: no heartbeat to keep
            self.broker.spawn(self.broker.store.state_delete(PLATFORM, _beat_key(qid)))
        return self._result(outcome, final)

    def _result(self, outcome: str, final: QuestionRecord) -> AskResult:
        if outcome == "restarting":
            raise Restarting(final.id)
        assert final.result is not None
        return final.result

    async def _beat(self, qid: QuestionId) -> None:
        while True:
            await self.broker.store.state_put(PLATFORM, _beat_key(qid), str(now_ms()))
            await asyncio.sleep(self.beat)

    async def _watch(self, qid: QuestionId) -> None:
        """Cancel `qid` once no call, here or on another replica, has waited on it for
        `reattach` seconds; stop watching when it ends."""
        store = self.broker.store
        left = self.reattach
        try:
            while True:
                await asyncio.sleep(left)
                record = await store.get_question(qid)
                if record is None or not record.pending:
                    return
                last = int(await store.state_get(PLATFORM, _beat_key(qid)) or 0)
                idle = (now_ms() - last) / 1000
                if self.broker.draining.is_set():
                    return
                if not self._here[qid] and idle >= self.reattach:
                    await abandon(self.broker, record, "no_call_reattached")
                    return
                left = max(self.beat, self.reattach - idle)
        finally:
            self._watched.discard(qid)
            if not self._here[qid]:
                await asyncio.shield(store.state_delete(PLATFORM, _beat_key(qid)))
