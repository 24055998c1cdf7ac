"""A failed start against a real homeserver: a refused access token ends `serve` with one
sentence naming its variable; an unreachable homeserver is retried while the rest serves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.adapters.matrix.support import Mx
from tests.harness import free_port
from tests.starts import BANNER, start, unused_url


def config_of(mx: Mx, homeserver: str) -> dict[str, Any]:
    return {"agents": [{"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main",
                        "surfaces": [mx.surface]}],
            "matrix": {**mx.section(), "homeserver": homeserver}}


async def test_refused_access_token_ends_the_start(mx: Mx, tmp_path: Path) -> None:
    outcome = await start(tmp_path, config_of(mx, mx.hs.url),
                          {"MATRIX_ACCESS_TOKEN": "syt_not_a_token"})
    assert outcome.returncode not in (None, 0), outcome.output
    assert "$MATRIX_ACCESS_TOKEN" in outcome.output
    assert "Traceback" not in outcome.output and BANNER not in outcome.output, outcome.output


async def test_unreachable_homeserver_is_retried_while_serving(mx: Mx, tmp_path: Path) -> None:
    outcome = await start(tmp_path, config_of(mx, unused_url(free_port())),
                          {"MATRIX_ACCESS_TOKEN": mx.bot_token})
    assert outcome.returncode is None, outcome.output
    assert "matrix_unreachable_at_start" in outcome.output
    assert "Traceback" not in outcome.output, outcome.output


async def test_doctor_names_a_refused_token_without_library_noise(mx: Mx, tmp_path: Path) -> None:
    from tests.bridge.shell import run
    from tests.reliability.server import to_toml

    config = tmp_path / "askbridge.toml"
    config.write_text(to_toml({"data_dir": str(tmp_path), **config_of(mx, mx.hs.url)}))
    code, out, err = await run(tmp_path, "doctor", "--config", str(config),
                               AGENT_TOKEN="a-token", ASKBRIDGE_WEB_TOKEN="w-token",
                               MATRIX_ACCESS_TOKEN="syt_not_a_token")
    assert code == 1 and "MATRIX_ACCESS_TOKEN" in out, out + err
    assert "required property" not in out + err and "Error validating" not in out + err
