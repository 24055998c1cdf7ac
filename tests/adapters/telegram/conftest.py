"""Fixtures for the Telegram tests: a fake Bot API per test and configs pointing at it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bridge import BridgeConfig
from tests.fakes.telegram import TOKEN, FakeTelegram
from tests.harness import base_env, make_config


@dataclass
class Tg:
    fake: FakeTelegram
    tmp: Path

    @property
    def env(self) -> dict[str, str]:
        return {**base_env(), "TELEGRAM_BOT_TOKEN": TOKEN, "TG_HOOK_SECRET": "hook-secret-1"}

    def config(self, chat: int | str, answerers: list[int] | None = None,
               **telegram: Any) -> BridgeConfig:
        section = {"token_env": "TELEGRAM_BOT_TOKEN", "base_url": self.fake.base_url,
                   "poll_timeout": 5, "retry_base_seconds": 0.05,
                   "answerers": answerers or [], **telegram}
        return make_config(self.tmp, surfaces=[f"telegram:{chat}"], telegram=section)


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as f:
        yield f


@pytest.fixture
def tg(fake: FakeTelegram, tmp_path: Path) -> Tg:
    return Tg(fake, tmp_path)
