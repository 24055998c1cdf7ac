"""Each pending question's deadline, armed on the event loop; due ones are handed to `expire`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from bridge.model.ids import QuestionId
from bridge.store.records import now_ms


class Deadlines:
    """One loop timer per pending question (a handle costs ~100 bytes; a task would cost more)."""

    def __init__(self, due: Callable[[QuestionId], object]) -> None:
        self._due = due
        self._timers: dict[QuestionId, asyncio.TimerHandle] = {}

    def __contains__(self, question_id: QuestionId) -> bool:
        return question_id in self._timers

    def arm(self, question_id: QuestionId, expires_at: int) -> None:
        """Call `due(question_id)` at `expires_at` (ms since the epoch), replacing any earlier."""
        delay = max(0.0, (expires_at - now_ms()) / 1000)
        self.disarm(question_id)
        self._timers[question_id] = asyncio.get_running_loop().call_later(
            delay, self._due, question_id)

    def disarm(self, question_id: QuestionId) -> None:
        handle = self._timers.pop(question_id, None)
        if handle is not None:
            handle.cancel()

    def clear(self) -> None:
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
