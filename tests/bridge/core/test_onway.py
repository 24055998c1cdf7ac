"""`on_its_way`: a callback at a coroutine's first wait on a future, the coroutine otherwise as is."""

from __future__ import annotations

import asyncio

import pytest

from bridge.core.onway import on_its_way


async def test_the_callback_comes_at_the_first_wait_on_a_future_not_at_a_checkpoint() -> None:
    steps: list[str] = []
    answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def send() -> str:
        steps.append("prepared")
        await asyncio.sleep(0)  # a checkpoint, as HTTP clients make while building a request
        steps.append("built")
        await asyncio.sleep(0)
        steps.append("written")
        reply = await answer
        steps.append("answered")
        return reply

    sending = asyncio.create_task(on_its_way(send(), lambda: steps.append("on its way")))
    for _ in range(5):
        await asyncio.sleep(0)
    assert steps == ["prepared", "built", "written", "on its way"]

    answer.set_result("ok")

    assert await sending == "ok"
    assert steps == ["prepared", "built", "written", "on its way", "answered"]


async def test_the_callback_comes_once_when_the_coroutine_never_waits() -> None:
    calls: list[str] = []

    async def at_once() -> int:
        return 7

    assert await on_its_way(at_once(), lambda: calls.append("then")) == 7
    assert calls == ["then"]


async def test_a_failure_passes_through_after_the_callback() -> None:
    calls: list[str] = []

    async def refused() -> None:
        await asyncio.sleep(0)
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        await on_its_way(refused(), lambda: calls.append("then"))
    assert calls == ["then"]


async def test_a_timeout_around_it_cancels_the_coroutine_inside() -> None:
    calls: list[str] = []
    seen: list[str] = []

    async def never() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.05):
            await on_its_way(never(), lambda: calls.append("then"))
    assert seen == ["cancelled"] and calls == ["then"]  # at the wait, once


async def test_cancelled_before_it_ever_waited_it_calls_nothing() -> None:
    calls: list[str] = []
    checkpoints = 0

    async def busy() -> None:
        nonlocal checkpoints
        while True:
            checkpoints += 1
            await asyncio.sleep(0)

    busying = asyncio.create_task(on_its_way(busy(), lambda: calls.append("then")))
    for _ in range(3):
        await asyncio.sleep(0)
    assert checkpoints >= 2
    busying.cancel()

    with pytest.raises(asyncio.CancelledError):
        await busying
    assert calls == []


async def test_an_error_the_coroutine_handles_inside_does_not_end_it() -> None:
    async def patient() -> str:
        try:
            async with asyncio.timeout(0.01):
                await asyncio.Event().wait()
        except TimeoutError:
            await asyncio.sleep(0.01)
            return "gave up waiting, then answered"
        return "never"

    assert await on_its_way(patient(), lambda: None) == "gave up waiting, then answered"


async def test_closed_unfinished_it_closes_the_coroutine_and_calls_nothing() -> None:
    calls: list[str] = []
    closed: list[str] = []

    async def busy() -> None:
        try:
            await asyncio.sleep(0)
            await asyncio.sleep(0)
        except GeneratorExit:
            closed.append("closed")
            raise

    steps = on_its_way(busy(), lambda: calls.append("then")).__await__()
    next(steps)  # to its first checkpoint, as a task's first step would
    steps.close()  # as when an unfinished task is dropped

    assert closed == ["closed"] and calls == []
