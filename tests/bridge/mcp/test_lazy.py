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


async def test_a_configured_secret_seals_request_state_alike_everywhere(tmp_path: Path) -> None:
    """Two servers with separate stores, one `[mcp] state_key_env` secret: a requestState one
    sealed is accepted by the other (without the secret each keeps a key of its own)."""
    import mcp.types as mt
    import pytest
    from mcp.shared.exceptions import MCPError

    from bridge.runtime.config import ConfigError
    from tests.bridge.mcp.new_host import new_host
    from tests.harness import base_env, make_config, running
    from tests.samples import DEPLOY

    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        raise AssertionError("driven by hand")

    reply: dict[str, mt.InputResponse] = {"answer": mt.ElicitResult(action="decline")}
    for shared, expect_refused in ((True, False), (False, True)):
        mcp = {"state_key_env": "MCP_STATE_KEY"} if shared else {}
        env = {**base_env(), "MCP_STATE_KEY": "s" * 40}
        one, two = tmp_path / f"{shared}-1", tmp_path / f"{shared}-2"
        one.mkdir()
        two.mkdir()
        async with running(make_config(one, mcp=mcp), env=env) as a, \
                running(make_config(two, mcp=mcp), env=env) as b:
            async with new_host(f"{a.url}/mcp", form=form) as host:
                first = await host.session.call_tool("ask_user", DEPLOY, allow_input_required=True)
            assert isinstance(first, mt.InputRequiredResult)
            async with new_host(f"{b.url}/mcp", form=form) as host:
                try:
                    await host.session.call_tool("ask_user", DEPLOY, input_responses=reply,
                                                 request_state=first.request_state,
                                                 allow_input_required=True)
                    refused = False
                except MCPError as exc:
                    refused = "requestState" in str(exc)
        assert refused is expect_refused
    with pytest.raises(ConfigError, match="state_key_env names"):
        async with running(make_config(tmp_path / "x", mcp={"state_key_env": "NOPE"})):
            pass
