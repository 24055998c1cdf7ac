"""The ask_user tool over stdio (`askbridge mcp`) with an SDK 1.x host (2025-11-25, in its own
process: tests/bridge/mcp/old_host.py): listed, answered, cancelled, refused; and with SDK 2.x
hosts of both revisions."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.adapters.webhook.support import post_reply
from tests.bridge.mcp.new_host import MODERN, MODES
from tests.bridge.mcp.old_host import old_host
from tests.harness import AGENT_TOKEN, SUB_TOKEN, Running, make_config, running, until
from tests.samples import DEPLOY

EXPECTED = {"status": "answered", "answers": {"answers": {"deploy_target": {"answers": ["Canary"]}}}}


def over_stdio(r: Running | None, token: str = AGENT_TOKEN, url: str | None = None) -> Any:
    return old_host("stdio", env={
        "ASKBRIDGE_URL": url or (r.url if r else ""), "ASKBRIDGE_TOKEN": token,
        "ASKBRIDGE_SESSION": "mcp", "ASKBRIDGE_PROGRESS_SECONDS": "0.2"})


async def answer_when_pending(r: Running, text: str, ready: Callable[[], object] = lambda: True
                              ) -> None:
    """Reply `text` once the question is pending and `ready()` holds."""
    await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
    await until(ready)
    async with r.http() as http:
        assert (await post_reply(http, text)).json()["accepted"] is True


async def test_stdio_lists_the_tool_with_schema_and_guidance(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, over_stdio(r) as host:
        tools = await host.tools()
    assert [t["name"] for t in tools] == ["ask_user", "request_approval", "approve_tool_use"]
    tool = tools[0]
    assert "(Recommended)" in tool["description"]
    assert "Other" in tool["description"]
    assert "questions" in tool["inputSchema"]["properties"]
    assert tool["inputSchema"]["additionalProperties"] is False


async def test_stdio_call_is_answered_with_progress(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, over_stdio(r) as host:
        # Answer only once progress notifications have flowed.
        await host.call(DEPLOY)
        first = await host.expect("progress", "c")
        await answer_when_pending(r, "3")
        result = await host.result()
    assert result["isError"] is False
    assert result["structuredContent"] == EXPECTED
    assert "deploy_target: Canary" in result["content"][0]["text"]
    assert "Waiting for the user's answer" in first["message"]
    assert "s left" in first["message"]
    assert first["total"] == DEPLOY.get("timeoutSeconds", 900)  # total = the ask's timeout


async def test_stdio_client_going_away_cancels_the_question(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        async with over_stdio(r) as host:
            await host.call(DEPLOY)
            pending = await until(lambda: r.bridge.store.pending_questions())
            await host.kill()  # its `askbridge mcp` reads the end of its stdin
        qid = pending[0].id
        ended = await until(lambda: _terminal(r, qid))
        assert ended.reason == "cancelled"


async def test_stdio_host_reissuing_a_timed_out_call_reattaches(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, over_stdio(r) as host:
        await host.call(DEPLOY, tag="first", timeout=1)
        assert "Timed out" in (await host.expect("error", "first"))["error"]
        first = await r.bridge.store.pending_questions()
        await host.call(DEPLOY, tag="again")
        await answer_when_pending(r, "canary")
        result = await host.result("again")
        line = await r.bridge.store.timeline("assistant", "mcp")  # type: ignore[arg-type]
    assert result["structuredContent"] == EXPECTED
    assert [q.id for q in line] == [first[0].id]  # the same question: asked once


async def _terminal(r: Running, qid: Any) -> Any:
    record = await r.bridge.store.get_question(qid)
    return record if record and not record.pending else None


async def test_stdio_invalid_call_is_a_tool_error_with_the_422_messages(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, over_stdio(r) as host:
        bad = {"questions": [{"id": "x", "header": "H", "question": "Q?",
                              "options": [{"label": "A"}, {"label": "Other"}]}]}
        await host.call(bad)
        result = await host.result()
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert "questions[0].options[1].label" in text and "own words" in text


async def test_stdio_subagent_sees_no_tool(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, over_stdio(r, token=SUB_TOKEN) as host:
        assert await host.tools() == []


async def test_stdio_without_a_server_tells_the_model_what_to_do(tmp_path: Path) -> None:
    from tests.harness import free_port

    url = f"http://127.0.0.1:{free_port()}"
    async with over_stdio(None, url=url) as host:
        await host.call(DEPLOY)
        result = await host.result()
    text = result["content"][0]["text"]
    assert result["isError"] is True
    assert f"not reachable at {url}" in text and "askbridge serve" in text


@pytest.mark.parametrize("mode", MODES)
async def test_stdio_with_an_sdk_2_host_of_either_revision(tmp_path: Path, mode: str) -> None:
    updates: list[str | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append(message)

    params = StdioServerParameters(command=sys.executable, args=["-m", "bridge", "mcp"], env={
        "ASKBRIDGE_URL": "", "ASKBRIDGE_TOKEN": AGENT_TOKEN, "ASKBRIDGE_SESSION": "mcp",
        "ASKBRIDGE_PROGRESS_SECONDS": "0.2", "PATH": "/usr/bin:/bin"})
    async with running(make_config(tmp_path)) as r:
        params.env = {**(params.env or {}), "ASKBRIDGE_URL": r.url}
        async with Client(params, mode=mode) as host:
            assert host.protocol_version == (MODERN if mode == MODERN else "2025-11-25")
            assert [t.name for t in (await host.list_tools()).tools] == [
                "ask_user", "request_approval", "approve_tool_use"]
            call = asyncio.create_task(host.call_tool("ask_user", DEPLOY,
                                                      progress_callback=on_progress))
            await until(lambda: updates)
            await answer_when_pending(r, "canary")
            result = await call
    assert result.structured_content == EXPECTED
    assert "s left" in (updates[0] or "")


async def test_stdio_lone_surrogate_is_a_tool_error_naming_the_field(tmp_path: Path) -> None:
    """A host that cuts an emoji in half (JSON.stringify writes the lone half as `\\ud83d`)
    gets the same refusal by name as at /mcp, not a call that never answers: the SDK's own
    parser refuses such a line, so the call would otherwise wait forever."""
    header = b'"\\ud83d"'
    line = (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask_user",'
            b'"arguments":{"questions":[{"id":"a","header":' + header + b',"question":"Q?",'
            b'"options":[{"label":"A"},{"label":"B"}]}]}}}\n')
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}}
    async with running(make_config(tmp_path)) as r:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bridge", "mcp", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, cwd=Path(__file__).parents[3],
            env={"ASKBRIDGE_URL": r.url, "ASKBRIDGE_TOKEN": AGENT_TOKEN, "PATH": "/usr/bin:/bin"})
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(init).encode() + b"\n")
            await asyncio.wait_for(proc.stdout.readline(), 30)
            proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n' + line)
            await proc.stdin.drain()
            answered = json.loads(await asyncio.wait_for(proc.stdout.readline(), 15))
        finally:
            proc.kill()
            await proc.wait()
        assert await r.bridge.store.pending_questions() == []
    assert answered["id"] == 7 and answered["result"]["isError"] is True
    assert "questions[0].header" in answered["result"]["content"][0]["text"]
    assert "surrogate" in answered["result"]["content"][0]["text"]
