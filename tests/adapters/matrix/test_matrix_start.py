"""A failed start against a real homeserver: a refused access token ends `serve` with one
sentence naming its variable; an unreachable homeserver is retried while the rest serves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.adapters.matrix.people import Mx
from tests.harness import free_port
from tests.starts import BANNER, start, unused_url


def config(mx: Mx, homeserver: str) -> dict[str, Any]:
    return {"agents": [{"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main",
                        "surfaces": [mx.surface]}],
            "matrix": {**mx.section(), "homeserver": homeserver}}


async def test_refused_access_token_ends_the_start(mx: Mx, tmp_path: Path) -> None:
    outcome = await start(tmp_path, config(mx, mx.hs.url),
                          {"MATRIX_ACCESS_TOKEN": "syt_not_a_token"})
    assert outcome.returncode not in (None, 0), outcome.output
    assert "$MATRIX_ACCESS_TOKEN" in outcome.output
    assert "Traceback" not in outcome.output and BANNER not in outcome.output, outcome.output


async def test_unreachable_homeserver_is_retried_while_serving(mx: Mx, tmp_path: Path) -> None:
    outcome = await start(tmp_path, config(mx, unused_url(free_port())),
                          {"MATRIX_ACCESS_TOKEN": mx.bot_token})
    assert outcome.returncode is None, outcome.output
    assert "matrix_unreachable_at_start" in outcome.output
    assert "Traceback" not in outcome.output, outcome.output
