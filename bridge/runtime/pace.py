"""Pace: calls to a platform leave only when every limit they count against has room, the most
urgent first; a call waiting to edit a message gives way to a later edit of the same message."""

from __future__ import annotations

import asyncio
import bisect
import itertools
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Protocol, TypeVar, runtime_checkable

from bridge.runtime.windows import Stamp, Windows

T = TypeVar("T")


class Priority(IntEnum):
    """Who goes first when several calls wait for room: a new prompt, then a reminder, then an
    edit (a person waits for the first; the last only tidies a message already shown)."""

    PROMPT = 0
    REMINDER = 1
    EDIT = 2


@dataclass(slots=True)
class _Waiting:
    order: tuple[int, int]
    """(priority, arrival): the queue's order."""
    windows: Windows
    future: asyncio.Future[Stamp | None]
    collapse: Hashable | None


@dataclass(slots=True)
class _Paid:
    """A slot the core took before calling the adapter: the adapter's first call spends it."""

    pace: Pace
    windows: Windows
    stamp: Stamp
    task: asyncio.Task[object] | None
    """Only the task that took it: tasks started inside copy the context, not the slot."""
    used: bool = field(default=False)


_PAID: ContextVar[_Paid | None] = ContextVar("askbridge_paid_slot", default=None)


class Pace:
    """One platform's limits. `windows(surface, priority)` names the windows a call to that
    surface counts against (the bot's, the chat's, the method's tier); the same window object
    each time for the same limit. A call with no windows leaves at once.

    Not aiolimiter (nor python-telegram-bot's AIORateLimiter, built on it): its leaky buckets
    wake waiters first come, first served, with no priorities and no way to drop an edit a later
    one replaced, and PTB's knows no per-chat limit for private chats."""

    def __init__(self, windows: Callable[[str, Priority], Windows]) -> None:
        self.windows = windows
        self._lines: dict[Windows, list[_Waiting]] = {}
        """Waiting calls by the windows they count against, each line in (priority, arrival)
        order: when a line's first cannot leave, none behind it can."""
        self._collapsing: dict[Hashable, _Waiting] = {}
        self._arrivals = itertools.count()
        self._grants = itertools.count()
        self._timer: asyncio.TimerHandle | None = None

    @asynccontextmanager
    async def slot(self, surface: str, priority: Priority,
                   collapse: Hashable | None = None) -> AsyncIterator[bool]:
        """Wait for room for one call; True once it may leave, False when a later edit of the
        same message (`collapse`) took its place. The adapter's first call inside spends it."""
        windows = self.windows(surface, priority)
        stamp = await self._wait(windows, priority, collapse)
        if stamp is None:
            yield False
            return
        token = _PAID.set(_Paid(self, windows, stamp, asyncio.current_task()))
        try:
            yield True
        finally:
            _PAID.reset(token)
            self._answered(stamp)

    async def call(self, surface: str, priority: Priority,
                   send: Callable[[], Awaitable[T]]) -> T:
        """`send()` once there is room (at once if the core already took this call's slot)."""
        windows = self.windows(surface, priority)
        stamp = self._paid(windows)
        if stamp is None:
            stamp = await self._wait(windows, priority, None)
            assert stamp is not None  # only calls with a `collapse` key give way
        try:
            return await send()
        finally:
            self._answered(stamp)

    async def edit(self, surface: str, message: Hashable,
                   send: Callable[[], Awaitable[object]]) -> None:
        """`send()` an edit of `message` once there is room; skipped when a later edit of the
        same message is queued before this one leaves (the later one shows the latest)."""
        windows = self.windows(surface, Priority.EDIT)
        stamp = self._paid(windows) or await self._wait(windows, Priority.EDIT, message)
        if stamp is None:
            return
        try:
            await send()
        finally:
            self._answered(stamp)

    def _paid(self, windows: Windows) -> Stamp | None:
        paid = _PAID.get()
        if (paid is None or paid.pace is not self or paid.used or paid.windows != windows
                or paid.task is not asyncio.current_task()):
            return None
        paid.used = True
        return paid.stamp

    async def _wait(self, windows: Windows, priority: Priority,
                    collapse: Hashable | None) -> Stamp | None:
        loop = asyncio.get_running_loop()
        waiting = self._collapsing.get(collapse) if collapse is not None else None
        now = loop.time()  # nobody waits on any of these limits and all have room: go now
        if waiting is None and all(not w.waiting and w.room(now) for w in windows):
            return self._grant(windows)  # (a waiter on a shared one would have gone first)
        future: asyncio.Future[Stamp | None] = loop.create_future()
        if waiting is not None:  # the earlier edit gives way; this one keeps its place
            waiting.future.set_result(None)
            waiting.future = future
            if priority < waiting.order[0]:
                self._line(windows).remove(waiting)
                waiting.order = (priority, waiting.order[1])
                bisect.insort(self._line(windows), waiting, key=_order)
        else:
            waiting = _Waiting((priority, next(self._arrivals)), windows, future, collapse)
            bisect.insort(self._line(windows), waiting, key=_order)
            for window in windows:
                window.waiting += 1
            if collapse is not None:
                self._collapsing[collapse] = waiting
        self._dispatch()
        try:
            return await future
        except asyncio.CancelledError:
            self._gave_up(waiting, future)
            raise

    def _line(self, windows: Windows) -> list[_Waiting]:
        return self._lines.setdefault(windows, [])

    def _gave_up(self, waiting: _Waiting, future: asyncio.Future[Stamp | None]) -> None:
        """A waiter was cancelled: its place goes, or the slot it was just given is spent."""
        if future.done() and not future.cancelled():
            stamp = future.result()
            if stamp is not None:
                self._answered(stamp)
        elif waiting.future is future:
            self._leave(waiting)
            self._dispatch()

    def _leave(self, waiting: _Waiting) -> None:
        line = self._lines[waiting.windows]
        line.remove(waiting)
        for window in waiting.windows:
            window.waiting -= 1
        if not line:
            del self._lines[waiting.windows]
        if waiting.collapse is not None:
            self._collapsing.pop(waiting.collapse, None)

    def _answered(self, stamp: Stamp) -> None:
        if stamp.at == math.inf:
            stamp.at = asyncio.get_running_loop().time()
            self._dispatch()

    def _dispatch(self) -> None:
        """Let every call leave that has room, in `_turn` order; wake again when a window frees."""
        now = asyncio.get_running_loop().time()
        sent = True
        while sent:
            sent = False
            for waiting in sorted((line[0] for line in self._lines.values()), key=_turn):
                if all(w.room(now) for w in waiting.windows):
                    self._leave(waiting)
                    waiting.future.set_result(self._grant(waiting.windows))
                    sent = True
        self._wake_at(now)

    def _grant(self, windows: Windows) -> Stamp:
        stamp, grant = Stamp(), next(self._grants)
        for window in windows:
            window.take(stamp)
            window.served = grant
        return stamp

    def _wake_at(self, now: float) -> None:
        due = min((max((w.free_at() for w in line[0].windows if not w.room(now)), default=now)
                   for line in self._lines.values()), default=math.inf)
        if self._timer is not None and (due == math.inf or self._timer.when() > due):
            self._timer.cancel()
            self._timer = None
        if due < math.inf and self._timer is None:
            self._timer = asyncio.get_running_loop().call_at(due, self._timer_fired)

    def _timer_fired(self) -> None:
        self._timer = None
        self._dispatch()


def _order(waiting: _Waiting) -> tuple[int, int]:
    return waiting.order


def _turn(waiting: _Waiting) -> tuple[int, int, int]:
    """Across lines: priority, the chat that sent least recently (never: first), arrival. By
    arrival alone, an idle chat's first prompt waited behind the next call of every busy chat."""
    return (waiting.order[0], min((w.served for w in waiting.windows), default=-1),
            waiting.order[1])


@runtime_checkable
class Paced(Protocol):
    """Optional for adapters: calls to the platform wait for room in its limits. The core takes
    a slot before each prompt, reminder and final edit (the wait is not counted against the call's
    timeout); the adapter paces any further call it makes itself."""

    pace: Pace
