"""Our own messages a reply answers a question through — force-reply asks, "still needed"
follow-ups, an approval's Reject and Edit requests — kept in the store, so a reply to one still
answers after a restart."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import structlog

from bridge import AdapterState, Queries, QuestionId

log = structlog.get_logger("askbridge.telegram")

Key = tuple[int | str, int]
"""(chat, message id)"""

PREFIX = "bound:"
ASKED = "asked:"
"""An approval's Reject or Edit request: `asked:<chat>:<message>` → `<question> <kind> <mark>`."""
SWEEP_SECONDS = 3600.0
"""How often, at most, bindings are pruned (on a bind, in the background)."""


def _stored(key: Key, prefix: str = PREFIX) -> str:
    return f"{prefix}{key[0]}:{key[1]}"


class Bindings:
    """Message → question, in memory for speed and in the adapter's state for restarts.

    Entries of ended questions are kept in the store on purpose: a late reply to one is told the
    question ended, rather than being taken for chatter. They go once retention has deleted
    their question (`prune`), when no reply could be told anything about it any more."""

    def __init__(self, state: AdapterState) -> None:
        self.state = state
        self._recent: dict[Key, QuestionId] = {}
        self._swept: float | None = None
        self._pruning: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._recent)

    async def bind(self, key: Key, question_id: QuestionId) -> None:
        self._recent[key] = question_id
        await self.state.put(_stored(key), question_id)

    async def get(self, key: Key) -> QuestionId | None:
        if key in self._recent:
            return self._recent[key]
        found = await self.state.get(_stored(key))
        return QuestionId(found) if found else None

    async def bind_ask(self, key: Key, question_id: QuestionId, what: str) -> None:
        """Our request for an approval's reason or arguments (`what`: its kind and the payload
        mark the button carried), kept only in the store: replies to it are rare."""
        await self.state.put(_stored(key, ASKED), f"{question_id} {what}")

    async def ask(self, key: Key) -> tuple[QuestionId, str] | None:
        found = await self.state.get(_stored(key, ASKED))
        if not found:
            return None
        question_id, _, what = found.partition(" ")
        return QuestionId(question_id), what

    def forget(self, question_id: QuestionId) -> None:
        """The question ended: drop it from memory (the store keeps it, see above)."""
        self._recent = {k: q for k, q in self._recent.items() if q != question_id}

    def sweep_due(self, now: float) -> bool:
        """True (and the clock restarted) when the last prune is `SWEEP_SECONDS` behind `now`."""
        if self._swept is not None and now - self._swept < SWEEP_SECONDS:
            return False
        self._swept = now
        return True

    def prune_soon(self, queries: Queries | None,
                   *more: Callable[[Queries], Awaitable[object]]) -> None:
        """Prune in the background, then run `more` (other state to prune the same way), when
        a sweep is due and none is running."""
        running = self._pruning is not None and not self._pruning.done()
        if queries is None or running or not self.sweep_due(asyncio.get_running_loop().time()):
            return

        async def sweep() -> None:
            try:
                dropped = await self.prune(queries)
                for prune in more:
                    await prune(queries)
                log.info("telegram_bindings_pruned", dropped=dropped, in_memory=len(self))
            except Exception:  # the store is away: the next sweep tries again
                log.exception("telegram_bindings_prune_failed")

        self._pruning = asyncio.create_task(sweep())

    async def close(self) -> None:
        if self._pruning is not None:
            self._pruning.cancel()
            await asyncio.gather(self._pruning, return_exceptions=True)

    async def prune(self, queries: Queries) -> int:
        """Drop from memory the bindings of questions that ended (another replica may have
        finalized them, so `forget` never ran here), and from the store those whose question
        retention deleted. How many stored ones went."""
        ended: dict[QuestionId, bool] = {}
        for question_id in set(self._recent.values()):
            ended[question_id] = await queries.prompt_for(question_id) is None
        self._recent = {k: q for k, q in self._recent.items() if not ended[q]}
        gone: dict[str, bool] = {}
        dropped = 0
        stored_asks = [(k, v.partition(" ")[0]) for k, v in await self.state.items(ASKED)]
        for stored, value in [*await self.state.items(PREFIX), *stored_asks]:
            if value not in gone:
                gone[value] = await queries.question_view(QuestionId(value)) is None
            if gone[value] and await self.state.delete(stored):
                dropped += 1
        return dropped
