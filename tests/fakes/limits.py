"""Sliding-window rate limits for the fake platforms: a call over any of its windows is refused
with how long to wait, as the real APIs answer with HTTP 429."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Hashable, Sequence

Limit = tuple[Hashable, int, float]
"""(which window, at most this many calls, in any this many seconds)."""


class SlidingWindows:
    """Calls as the platform counts them: by the time they arrive."""

    def __init__(self) -> None:
        self._arrivals: dict[Hashable, deque[float]] = {}
        self.refused = 0
        """429s answered."""

    def over(self, limits: Sequence[Limit], now: float | None = None) -> float | None:
        """Seconds to wait when the call breaks a limit (nothing recorded), else None (the
        call is counted in each window)."""
        now = time.monotonic() if now is None else now
        wait = 0.0
        for key, capacity, seconds in limits:
            arrivals = self._arrivals.setdefault(key, deque())
            while arrivals and arrivals[0] <= now - seconds:
                arrivals.popleft()
            if len(arrivals) >= capacity:
                wait = max(wait, arrivals[len(arrivals) - capacity] + seconds - now)
        if wait > 0:
            self.refused += 1
            return wait
        for key, _, _ in limits:
            self._arrivals[key].append(now)
        return None
