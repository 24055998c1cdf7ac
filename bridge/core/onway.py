"""Knowing when a send is on its way: the first time its coroutine waits on a future.

A coroutine that the event loop runs suspends in one of two ways: a bare `yield` (a checkpoint
such as `asyncio.sleep(0)`, which HTTP clients make several times while they prepare a request,
to let other tasks run) or by yielding the future it waits for (an answer from the network, a
database thread, a lock held by someone else). `on_its_way` runs a coroutine as it is and calls
`then` the first time it does the second, or when it returns or raises, whichever comes first
(not when it is cancelled). For a platform call that is right after the request was written:
what comes next is the platform's answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")


class Once:
    """A callback that runs on its first call only."""

    __slots__ = ("call",)

    def __init__(self, call: Callable[[], None]) -> None:
        self.call: Callable[[], None] | None = call

    def __call__(self) -> None:
        call, self.call = self.call, None
        if call is not None:
            call()


class _OnItsWay:
    __slots__ = ("coro", "then")

    def __init__(self, coro: Coroutine[Any, Any, Any], then: Callable[[], None]) -> None:
        self.coro = coro
        self.then = Once(then)

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, sent, thrown = self.coro, None, None
        cancelled = False
        try:
            while True:
                try:
                    yielded = coro.send(sent) if thrown is None else coro.throw(thrown)
                except StopIteration as done:
                    return done.value
                if yielded is not None:
                    self.then()
                try:
                    sent, thrown = (yield yielded), None
                except GeneratorExit:  # closed unfinished (its task was dropped): as cancelled
                    cancelled = True
                    coro.close()
                    raise
                except BaseException as exc:  # cancellation, and anything thrown in: pass it on
                    sent, thrown = None, exc
                if self.then.call is None and sent is None and thrown is None:
                    # called: the rest is the coroutine's own, driven straight by the task
                    return (yield from coro.__await__())
        except asyncio.CancelledError:
            cancelled = True  # abandoned, not on its way: whoever cancelled is going away
            raise
        finally:
            if not cancelled:
                self.then()


async def on_its_way(coro: Coroutine[Any, Any, T], then: Callable[[], None]) -> T:
    """Await `coro`; `then()` is called once, the first time `coro` waits on a future, or when
    it returns or raises; not when it is cancelled before either."""
    result: T = await _OnItsWay(coro, then)
    return result
