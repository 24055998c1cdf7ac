"""A second `askbridge serve` on the SQLite file a running one serves refuses to start, saying
why; once the first is gone (even killed), the file is free again."""

from __future__ import annotations

import signal
from pathlib import Path

from tests.reliability.server import Server
from tests.starts import BANNER, start

CONFIG = {"agents": [{"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main",
                      "surfaces": ["web"]}]}


async def test_a_second_server_on_one_sqlite_file_refuses_to_start(tmp_path: Path) -> None:
    first = Server(tmp_path, CONFIG)
    await first.start()
    try:
        second = await start(tmp_path, CONFIG, {})
    finally:
        first.kill()
        await first.wait_dead()
    assert second.returncode == 2, second.output
    assert "Another askbridge is already serving" in second.output
    assert f"{first.db}.lock" in second.output and "postgresql" in second.output
    assert BANNER not in second.output and "Traceback" not in second.output
    assert first.proc is not None and first.proc.returncode == -signal.SIGKILL
    third = await start(tmp_path, CONFIG, {})  # the kill released the lock
    assert third.returncode is None, third.output
