"""The one retry schedule: doubling from `start`, capped, spread by jitter, bounded by `tries`."""

from __future__ import annotations

import asyncio

import pytest

from bridge import backoff


async def test_doubles_up_to_the_cap_and_stops_after_tries(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", fake_sleep)
    yielded = [d async for d in backoff(1.0, 5.0, jitter=0.0, tries=5)]
    assert slept == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert yielded == slept


async def test_jitter_stays_within_its_spread(monkeypatch: pytest.MonkeyPatch) -> None:
    async def fake_sleep(seconds: float) -> None:
        return None

    monkeypatch.setattr(asyncio, "sleep", fake_sleep)
    delays = [d async for d in backoff(10.0, 10.0, jitter=0.2, tries=50)]
    assert all(8.0 <= d <= 12.0 for d in delays)
    assert len(set(delays)) > 1
