"""One retry schedule for every reconnect and retry loop: `async for delay in backoff(...)`."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator


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
    delay = start
    n = 0
    while tries is None or n < tries:
        spread = delay * jitter
        slept = max(0.0, delay + random.uniform(-spread, spread))
        await asyncio.sleep(slept)
        yield slept
        n += 1
        delay = min(delay * factor, cap)
