"""Events handled side by side, in order within a room, and the /sync position kept behind them.

A /sync batch's events become tasks: each waits for its room's previous event, not for other
rooms, and the sync loop goes on to the next /sync meanwhile. A batch's position is stored once
every event of it and of every batch before it is handled, so a restart resumes before any event
that was still in hand: handled again rather than lost.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import structlog

from bridge import DeliveryError

log = structlog.get_logger("askbridge.matrix")
MAX_IN_HAND = 256
"""Events being handled at once; with this many in hand, the next /sync waits for one to end."""


@dataclass
class Batch:
    """One /sync's position and how many of its events are still being handled (one more while
    they are being taken, so it cannot look finished before all are in hand)."""

    position: str
    open: int = 1


class InRoomOrder:
    """Where a /sync batch's events are handled, and its position saved behind them."""

    def __init__(self, save: Callable[[str], Awaitable[None]],
                 max_in_hand: int = MAX_IN_HAND) -> None:
        self._save = save
        self._batches: deque[Batch] = deque()
        """Batches taken, oldest first, from the first one not yet fully handled."""
        self._done: str | None = None
        """The newest position before which every event is handled."""
        self._saved: str | None = None
        """The position last stored."""
        self._saving = asyncio.Lock()
        self._slots = asyncio.Semaphore(max_in_hand)
        self._last: dict[str, asyncio.Task[None]] = {}
        """Per room, its latest event's task: the room's next event starts after it."""
        self._handling: set[asyncio.Task[None]] = set()

    def batch(self, position: str) -> Batch:
        """A /sync answered: take its events with `add`, then `taken`."""
        batch = Batch(position)
        self._batches.append(batch)
        return batch

    async def add(self, batch: Batch, room_id: str, work: Callable[[], Awaitable[None]]) -> None:
        """Handle one event (`work`) after the room's events before it; waits while the most
        events are in hand."""
        await self._slots.acquire()
        batch.open += 1
        task = asyncio.create_task(self._handle(room_id, batch, self._last.get(room_id), work))
        self._last[room_id] = task
        self._handling.add(task)
        task.add_done_callback(lambda done: self._ended(room_id, done))

    async def taken(self, batch: Batch) -> None:
        """Every event of the batch is in hand (a batch without any is handled now)."""
        await self._handled(batch)

    async def stop(self) -> None:
        """Cancel the events in hand; the stored position stays before them."""
        for task in self._handling:
            task.cancel()
        await asyncio.gather(*self._handling, return_exceptions=True)

    def _ended(self, room_id: str, task: asyncio.Task[None]) -> None:
        self._handling.discard(task)
        if self._last.get(room_id) is task:
            del self._last[room_id]

    async def _handle(self, room_id: str, batch: Batch, before: asyncio.Task[None] | None,
                      work: Callable[[], Awaitable[None]]) -> None:
        try:
            if before is not None:
                await asyncio.wait([before])
            await work()
        except DeliveryError as exc:  # a notice could not be posted; the answer stands
            log.warning("matrix_notice_failed", room_id=room_id, error=str(exc))
        except Exception:  # one odd event must not stop the stream for everyone else
            log.exception("matrix_event_failed", room_id=room_id)
        finally:
            self._slots.release()
        try:
            await self._handled(batch)
        except Exception:  # the store is failing; a later event saves the position
            log.exception("matrix_position_not_saved", room_id=room_id)

    async def _handled(self, batch: Batch) -> None:
        batch.open -= 1
        if not (self._batches and self._batches[0].open == 0):
            return
        while self._batches and self._batches[0].open == 0:
            self._done = self._batches.popleft().position
        async with self._saving:  # one write at a time, always of the newest position
            done = self._done
            if done is not None and done != self._saved:
                await self._save(done)
                self._saved = done
