"""What `ask_user` declares over MCP (its result's schema, the contract's limits), who may call
/mcp (its own origin and configured ones: the DNS-rebinding rule), and one 401 wording."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import jsonschema  # type: ignore[import-untyped]  # no stubs; the checks below need none

from bridge.model.errors import NOT_AUTHORIZED
from tests.bridge.mcp.old_host import old_host
from tests.harness import AGENT_TOKEN, Running, make_config, running
from tests.samples import DEPLOY

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}}


def over_stdio(r: Running, token: str = AGENT_TOKEN) -> Any:
    """`askbridge mcp` under an SDK 1.x host (tests/bridge/mcp/old_host.py)."""
    return old_host("stdio", env={"ASKBRIDGE_URL": r.url, "ASKBRIDGE_TOKEN": token})


MCP_HEADERS = {"Authorization": f"Bearer {AGENT_TOKEN}",
               "Accept": "application/json, text/event-stream"}


async def test_ask_user_declares_its_result_and_the_contracts_limits(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        async with over_stdio(r) as host:
            tool = (await host.tools())[0]
    assert tool["outputSchema"] is not None
    jsonschema.validate({"status": "answered", "answers": {"answers": {
        "deploy_target": {"answers": ["Canary"]}}}}, tool["outputSchema"])
    jsonschema.validate({"status": "no_answer", "reason": "expired"}, tool["outputSchema"])
    for wrong in ({"status": "no_answer", "reason": "bored"}, {"status": "answered"}):
        try:
            jsonschema.validate(wrong, tool["outputSchema"])
        except jsonschema.ValidationError:
            continue
        raise AssertionError(f"{wrong} passed the output schema")
    schema = tool["inputSchema"]
    questions = schema["properties"]["questions"]
    assert (questions["minItems"], questions["maxItems"]) == (1, 3)
    question = schema["$defs"]["Question"]["properties"]
    assert question["id"]["pattern"] == "^[a-z][a-z0-9_]*$" and question["id"]["maxLength"] == 64
    assert question["question"]["maxLength"] == 500
    assert (question["options"]["minItems"], question["options"]["maxItems"]) == (2, 4)
    assert schema["$defs"]["Option"]["properties"]["label"]["maxLength"] == 64
    jsonschema.validate(DEPLOY, schema)  # a good call passes what a host may check first


async def test_mcp_refuses_a_foreign_origin_or_host(tmp_path: Path) -> None:
    allowed = "https://console.example.org"
    config = make_config(tmp_path, mcp={"allowed_origins": [allowed]})
    async with running(config) as r, httpx.AsyncClient(trust_env=False) as http:
        async def status(**headers: str) -> httpx.Response:
            return await http.post(f"{r.url}/mcp", json=INIT, headers=MCP_HEADERS | headers)

        foreign = await status(Origin="http://evil.example")
        rebound = await status(Host=f"evil.example:{r.port}")
        own = await status(Origin=r.url)
        listed = await status(Origin=allowed)
        plain = await status()
    assert foreign.status_code == 403 and foreign.json()["error"] == "forbidden"
    assert "allowed_origins" in foreign.json()["details"][0]["msg"]
    assert rebound.status_code == 403
    assert [own.status_code, listed.status_code, plain.status_code] == [200, 200, 200]


async def test_one_401_wording_on_v1_mcp_and_stdio(tmp_path: Path) -> None:
    wrong = {"Authorization": "Bearer wrong"}
    async with running(make_config(tmp_path)) as r, r.http() as http:
        v1 = (await http.get("/v1/me", headers=wrong)).json()["details"][0]["msg"]
        mcp = (await http.post("/mcp", json=INIT, headers=wrong)).json()["details"][0]["msg"]
        async with over_stdio(r, token="wrong") as host:
            await host.call(DEPLOY)
            called = await host.result()
    assert v1 == mcp == NOT_AUTHORIZED
    text = called["content"][0]["text"]
    assert called["isError"] and text.startswith(NOT_AUTHORIZED) and "ASKBRIDGE_TOKEN" in text
