"""The MCP SDK is loaded by the first request to /mcp, not at start."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

SDK_ON_DEMAND = """
import asyncio, sys
from pathlib import Path
from tests.harness import AGENT_TOKEN, make_config, running

async def main() -> None:
    async with running(make_config(Path(sys.argv[1]))) as r, r.http() as http:
        assert (await http.get("/healthz")).status_code == 200
        print("started", "mcp" in sys.modules)
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        print("stranger", (await http.post("/mcp", json=ping)).status_code)
        print("loaded", "mcp" in sys.modules)

asyncio.run(main())
"""


async def test_the_mcp_sdk_is_loaded_by_the_first_request_to_mcp_not_at_start(
    tmp_path: Path,
) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", SDK_ON_DEMAND, str(tmp_path), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, cwd=Path(__file__).parents[3])
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    lines = [line for line in out.decode().splitlines()
             if line.split(" ")[0] in {"started", "stranger", "loaded"}]
    assert lines == ["started False", "stranger 401", "loaded True"], out.decode()[-3000:]
