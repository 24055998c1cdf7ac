"""The approval tools with the real MCP SDK client: `approve_tool_use` answers Claude Code's
permission prompt as the JSON text it reads; `request_approval` returns the result as structured
content; both only for main agents; a server that is down is a clear answer, not a crash."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs; validate() needs none
from mcp import Client, StdioServerParameters

from bridge import ApprovalDecided, SurfaceId, UserRef
from tests.adapters.webhook.support import post_reply
from tests.bridge.mcp.new_host import new_host
from tests.harness import AGENT_TOKEN, SUB_TOKEN, Running, free_port, make_config, running, until

PAYLOADS = Path(__file__).resolve().parents[2] / "fakes" / "payloads" / "claude_code"
PERMISSION = json.loads((PAYLOADS / "permission_prompt_bash.json").read_text())
TOOLS = ["ask_user", "request_approval", "approve_tool_use"]
SMS = SurfaceId("webhook:sms:+100")


def stdio_params(url: str, token: str = AGENT_TOKEN) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "bridge", "mcp"],
        env={"ASKBRIDGE_URL": url, "ASKBRIDGE_TOKEN": token, "ASKBRIDGE_SESSION": "mcp",
             "ASKBRIDGE_PROGRESS_SECONDS": "0.2", "PATH": "/usr/bin:/bin"})


async def decide_when_pending(r: Running, text: str) -> None:
    await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
    async with r.http() as http:
        assert (await post_reply(http, text)).json()["accepted"] is True


def text_of(result: Any) -> str:
    return str(result.content[0].text)


async def test_main_agents_see_both_tools_and_subagents_none(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        async with Client(stdio_params(r.url)) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert list(tools) == TOOLS
            schema = tools["request_approval"].input_schema
            assert schema["required"] == ["action"] and schema["additionalProperties"] is False
            assert tools["approve_tool_use"].input_schema["required"] == ["tool_name", "input"]
        async with Client(stdio_params(r.url, SUB_TOKEN)) as s:
            assert (await s.list_tools()).tools == []


async def test_approve_tool_use_allows_with_the_input_or_denies_with_the_reason(
        tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        async with Client(stdio_params(r.url)) as s:
            deciding = asyncio.create_task(decide_when_pending(r, "approve"))
            allowed = await s.call_tool("approve_tool_use", PERMISSION)
            await deciding
            assert allowed.is_error is False
            assert json.loads(text_of(allowed)) == {"behavior": "allow",
                                                    "updatedInput": PERMISSION["input"]}
            deciding = asyncio.create_task(decide_when_pending(r, "reject not on a Friday"))
            denied = await s.call_tool("approve_tool_use", PERMISSION)
            await deciding
            answer = json.loads(text_of(denied))
            assert answer["behavior"] == "deny" and "not on a Friday" in answer["message"]
            assert set(answer) == {"behavior", "message"}


async def test_approve_tool_use_hands_back_the_persons_edit(tmp_path: Path) -> None:
    edited = {"command": "./deploy.sh --build 1432 --env staging"}

    async def edit() -> None:
        pending = await until(lambda: r.bridge.store.pending_on_surface(SMS))
        decided = await r.bridge.receiver.approval_decided(ApprovalDecided(
            SMS, UserRef("+100"), pending[0].id, "approve", authorized=True, arguments=edited))
        assert decided.accepted

    async with running(make_config(tmp_path)) as r:
        async with Client(stdio_params(r.url)) as s:
            editing = asyncio.create_task(edit())
            allowed = await s.call_tool("approve_tool_use", PERMISSION)
            await editing
            assert json.loads(text_of(allowed)) == {"behavior": "allow", "updatedInput": edited}


async def test_request_approval_returns_its_result_as_structured_content(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        async with Client(stdio_params(r.url)) as s:
            tool = next(t for t in (await s.list_tools()).tools if t.name == "request_approval")
            deciding = asyncio.create_task(decide_when_pending(r, "approve"))
            result = await s.call_tool("request_approval", {
                "action": "Deploy 1432 to prod", "tool": "Bash",
                "arguments": PERMISSION["input"], "risk": "high"})
            await deciding
            assert result.is_error is False
            content = result.structured_content or {}
            assert content["status"] == "approved" and content["arguments"] == PERMISSION["input"]
            jsonschema.validate(content, tool.output_schema or {})
            assert "Run it with exactly these arguments" in text_of(result)
            bad = await s.call_tool("request_approval", {"action": "", "risk": "extreme"})
            assert bad.is_error is True
            assert "action" in text_of(bad) and "risk" in text_of(bad)


async def test_a_server_that_is_down_denies_the_tool_use_saying_why(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    async with Client(stdio_params(url)) as s:
        result = await s.call_tool("approve_tool_use", PERMISSION)
        answer = json.loads(text_of(result))
        assert answer["behavior"] == "deny" and f"not reachable at {url}" in answer["message"]
        asked = await s.call_tool("request_approval", {"action": "Deploy"})
        assert asked.is_error is True and "not reachable" in text_of(asked)


async def test_over_streamable_http_too(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, \
            new_host(f"{r.url}/mcp", mode="legacy", session="web-mcp") as s:
        assert [t.name for t in (await s.list_tools()).tools] == TOOLS
        deciding = asyncio.create_task(decide_when_pending(r, "reject no"))
        denied = await s.call_tool("approve_tool_use", PERMISSION)
        await deciding
        assert json.loads(text_of(denied))["behavior"] == "deny"
        call = asyncio.create_task(s.call_tool("request_approval", {"action": "Go"}))
        pending = await until(lambda: r.bridge.store.pending_questions())
        call.cancel()  # the 2.x host sends notifications/cancelled for the request
        approval = await until(lambda: _ended(r, pending[0].id))  # ended with it
        assert approval.result.reason == "cancelled"
        line = await r.bridge.store.approvals_of("assistant", "web-mcp")  # type: ignore[arg-type]
        assert [a.request.tool for a in line] == [None, "Bash"]


async def test_progress_while_waiting_and_a_cancelled_call_cancels_the_approval(
        tmp_path: Path) -> None:
    updates: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append(message or "")

    async with running(make_config(tmp_path)) as r:
        async with Client(stdio_params(r.url)) as s:
            call = asyncio.create_task(s.call_tool(
                "request_approval", {"action": "Rotate the keys", "timeoutSeconds": 60},
                progress_callback=on_progress))
            pending = await until(lambda: r.bridge.store.pending_questions())
            await until(lambda: updates)
            assert "Waiting for the approval" in updates[0] and "s left" in updates[0]
            call.cancel()
        approval = await until(lambda: _ended(r, pending[0].id))
        assert approval.result.to_json() == {"status": "no_answer", "reason": "cancelled"}


async def _ended(r: Running, approval_id: Any) -> Any:
    approval = await r.bridge.approvals.get(approval_id)
    return None if approval.pending else approval


# A real MCP SDK client in its own process: Claude Code's permission prompt call, then killed.
VANISHING_HOST = """
import asyncio, sys
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

async def main(url, token):
    headers = {"Authorization": f"Bearer {token}", "X-Askbridge-Session": "vanish"}
    async with httpx2.AsyncClient(headers=headers, timeout=None) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="legacy") as s:
            await s.call_tool("approve_tool_use", {"tool_name": "Bash",
                                                   "input": {"command": "ls"}})

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


async def test_a_host_killed_mid_call_cancels_its_approval(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", VANISHING_HOST, f"{r.url}/mcp", AGENT_TOKEN)
        try:
            pending = await until(lambda: r.bridge.store.pending_questions(), timeout=30)
        finally:
            proc.kill()  # SIGKILL: a dead socket, nothing else
            await proc.wait()
        approval = await until(lambda: _ended(r, pending[0].id), timeout=15)
        assert approval.result.reason == "cancelled"


async def test_a_lone_surrogate_in_an_approval_at_mcp_is_refused_by_name(tmp_path: Path) -> None:
    """§16 at /mcp for the approval tools too: the text is refused by name, never approved
    with U+FFFD in its place (the arguments a person approves are what the agent runs)."""
    from tests.bridge.mcp_wire import call, headers, messages, open_session

    async with running(make_config(tmp_path)) as r, r.http() as http:
        sid = await open_session(http, AGENT_TOKEN)
        results = []
        for name, arguments in (("request_approval", {"action": "rm \ud83d -rf"}),
                                ("approve_tool_use", {"tool_name": "Bash",
                                                      "input": {"command": "rm \ud83d"}})):
            response = await asyncio.wait_for(http.post(
                "/mcp", headers=headers(AGENT_TOKEN, sid), content=call(name, arguments)), 15)
            results.append(messages(response)[-1]["result"])
        assert await r.bridge.store.pending_questions() == []
    refused, denied = results
    assert refused["isError"] is True and "action" in refused["content"][0]["text"]
    assert "surrogate" in refused["content"][0]["text"]
    assert json.loads(denied["content"][0]["text"])["behavior"] == "deny"
