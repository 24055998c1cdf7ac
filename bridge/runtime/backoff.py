"""One retry schedule for every reconnect and retry loop: `async for delay in backoff(...)`."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator


def backoff_delay(n: int, start: float = 1.0, cap: float = 60.0, factor: float = 2.0) -> float:
    """The n-th retry's delay (0-based) without jitter: `start * factor**n`, at most `cap`.
    For retries kept in the store (event hooks), where nothing sleeps in between."""
    return float(min(start * factor ** min(n, 64), cap))


async def backoff(
    start: float = 1.0,
    cap: float = 60.0,
    *,
    factor: float = 2.0,
    jitter: float = 0.1,
    tries: int | None = None,
) -> AsyncIterator[float]:
    """Yield the try number's delay *after* sleeping it: the loop body is the next attempt.

    The first attempt is the caller's own (before the loop); each iteration sleeps
    `start * factor**n` seconds (capped at `cap`, spread by ±`jitter` so many clients do not
    retry in step), then yields the delay it slept. `tries` bounds the number of retries;
    without it the loop ends only when the caller breaks out of it or is cancelled.
    """
    n = 0
    while tries is None or n < tries:
        delay = backoff_delay(n, start, cap, factor)
        spread = delay * jitter
        slept = max(0.0, delay + random.uniform(-spread, spread))
        await asyncio.sleep(slept)
        yield slept
        n += 1
