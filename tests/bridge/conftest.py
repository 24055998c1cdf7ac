"""The `core` fixture: a started broker and inbox on a real store, prompts going to a fake gateway."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bridge.support import Core, started
from tests.fakes.gateway import gateway
from tests.harness import WEBHOOK_SECRET


@pytest.fixture
async def core(tmp_path: Path) -> AsyncIterator[Core]:
    async with gateway(WEBHOOK_SECRET) as gw, started(tmp_path, gw) as c:
        yield c
