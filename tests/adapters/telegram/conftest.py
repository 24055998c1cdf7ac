"""Fixtures for the Telegram tests: a fake Bot API per test and configs pointing at it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.adapters.telegram.support import Tg
from tests.fakes.telegram import FakeTelegram


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as f:
        yield f


@pytest.fixture
def tg(fake: FakeTelegram, tmp_path: Path) -> Tg:
    return Tg(fake, tmp_path)
