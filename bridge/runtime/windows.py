"""Windows: how the platforms count calls — at most so many in any so many seconds — and the
windows of each chat or channel, kept only while they are in use (`Pace` waits on them)."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class Stamp:
    """When a call left, as its limits count it: `inf` while it is in flight, then the time it
    was answered. Counting from the answer, not the start, keeps a call that took long on the
    wire from arriving less than a window after the one before it."""

    __slots__ = ("at",)

    def __init__(self) -> None:
        self.at = math.inf


class Window:
    """At most `capacity` calls in any `seconds`: a sliding window, as the platforms count."""

    __slots__ = ("_stamps", "capacity", "seconds", "served", "waiting")

    def __init__(self, capacity: int, seconds: float) -> None:
        self.capacity, self.seconds = capacity, seconds
        self._stamps: list[Stamp] = []
        self.waiting = 0
        """Calls waiting in a `Pace` line that counts against this window."""
        self.served = -1  # the `Pace` grant a call last left with (-1: none yet)

    def idle(self, now: float) -> bool:
        """Nothing counts against it any more: no call waiting, none in flight, none answered
        within its span. A new window in its place would behave exactly the same."""
        return not self.waiting and all(s.at + self.seconds <= now for s in self._stamps)

    def room(self, now: float) -> bool:
        self._stamps = [s for s in self._stamps if s.at + self.seconds > now]
        return len(self._stamps) < self.capacity

    def free_at(self) -> float:
        """When the next call may leave (after `room` said no); `inf` until calls are answered."""
        times = sorted(s.at for s in self._stamps)
        return times[len(times) - self.capacity] + self.seconds

    def take(self, stamp: Stamp) -> None:
        self._stamps.append(stamp)


Windows = tuple[Window, ...]


class WindowsByKey(Generic[K]):
    """The windows of each chat or channel, made on first use (`make(key)`), the same objects
    while they are in use. A key whose windows are all idle is dropped by the next sweep (at
    most every `sweep_every` seconds, on a lookup): a bot that wrote to a million chats keeps
    state only for those it wrote to within the longest window."""

    def __init__(self, make: Callable[[K], Windows], sweep_every: float = 60.0) -> None:
        self.make = make
        self.sweep_every = sweep_every
        self._by_key: dict[K, Windows] = {}
        self._swept = -math.inf

    def __len__(self) -> int:
        return len(self._by_key)

    def get(self, key: K, now: float) -> Windows:
        if now - self._swept >= self.sweep_every:
            self.sweep(now)
        windows = self._by_key.get(key)
        if windows is None:
            windows = self._by_key[key] = self.make(key)
        return windows

    def sweep(self, now: float) -> None:
        """Drop every key whose windows are all idle at `now`."""
        self._swept = now
        self._by_key = {k: ws for k, ws in self._by_key.items()
                        if not all(w.idle(now) for w in ws)}
