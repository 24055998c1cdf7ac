"""Background work the process keeps track of: spawned by anyone, drained once when it stops."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

Spawn = Callable[[Coroutine[Any, Any, Any]], "asyncio.Task[Any]"]
"""Runs a coroutine in a task the process tracks and drains when it stops."""


class Tasks:
    """Tasks started for questions (sends, edits, timers): a reference is kept for each, so
    none is collected mid-flight, and a stop waits for them briefly before cancelling the rest."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def drain(self, timeout: float) -> None:
        """Wait up to `timeout` seconds for what is running, then cancel what is left."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)
        for task in set(self._tasks):
            task.cancel()

    def __len__(self) -> int:
        return len(self._tasks)
