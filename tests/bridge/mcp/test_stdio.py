"""The ask_user tool over stdio with the real MCP SDK client: listed, answered, cancelled, refused."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.adapters.webhook.support import post_reply
from tests.harness import AGENT_TOKEN, SUB_TOKEN, Running, make_config, running, until
from tests.samples import DEPLOY

EXPECTED = {"status": "answered", "answers": {"answers": {"deploy_target": {"answers": ["Canary"]}}}}


def stdio_params(r: Running, token: str = AGENT_TOKEN) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "bridge", "mcp"],
        env={"ASKBRIDGE_URL": r.url, "ASKBRIDGE_TOKEN": token, "ASKBRIDGE_SESSION": "mcp",
             "ASKBRIDGE_PROGRESS_SECONDS": "0.2", "PATH": "/usr/bin:/bin"},
    )


async def answer_when_pending(r: Running, text: str, ready: Callable[[], object] = lambda: True
                              ) -> None:
    """Reply `text` once the question is pending and `ready()` holds."""
    await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
    await until(ready)
    async with r.http() as http:
        assert (await post_reply(http, text)).json()["accepted"] is True


async def test_stdio_lists_the_tool_with_schema_and_guidance(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        async with stdio_client(stdio_params(r)) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            tools = (await s.list_tools()).tools
            assert [t.name for t in tools] == ["ask_user", "request_approval", "approve_tool_use"]
            tool = tools[0]
            assert "(Recommended)" in (tool.description or "")
            assert "Other" in (tool.description or "")
            assert "questions" in tool.inputSchema["properties"]
            assert tool.inputSchema["additionalProperties"] is False


async def test_stdio_call_is_answered_with_progress(tmp_path: Path) -> None:
    updates: list[tuple[float, str | None]] = []

    totals: list[float | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, message))
        totals.append(total)

    async with running(make_config(tmp_path)) as r:
        async with stdio_client(stdio_params(r)) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            # Answer only once progress notifications have flowed.
            answering = asyncio.create_task(answer_when_pending(r, "3", ready=lambda: updates))
            result = await s.call_tool("ask_user", DEPLOY, progress_callback=on_progress)
            await answering
            assert result.isError is False
            assert result.structuredContent == EXPECTED
            text = result.content[0].text  # type: ignore[union-attr]
            assert "deploy_target: Canary" in text
            assert updates and "Waiting for the user's answer" in (updates[0][1] or "")
            assert "s left" in (updates[0][1] or "")
            assert totals[0] == DEPLOY.get("timeoutSeconds", 900)  # total = the ask's timeout


async def test_stdio_client_going_away_cancels_the_question(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        async with stdio_client(stdio_params(r)) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            call = asyncio.create_task(s.call_tool("ask_user", DEPLOY))
            pending = await until(lambda: r.bridge.store.pending_questions())
            call.cancel()
        qid = pending[0].id
        ended = await until(lambda: _terminal(r, qid))
        assert ended.reason == "cancelled"


async def _terminal(r: Running, qid: Any) -> Any:
    record = await r.bridge.store.get_question(qid)
    return record if record and not record.pending else None


async def test_stdio_invalid_call_is_a_tool_error_with_the_422_messages(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        async with stdio_client(stdio_params(r)) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            bad = {"questions": [{"id": "x", "header": "H", "question": "Q?",
                                  "options": [{"label": "A"}, {"label": "Other"}]}]}
            result = await s.call_tool("ask_user", bad)
            assert result.isError is True
            text = result.content[0].text  # type: ignore[union-attr]
            assert "questions[0].options[1].label" in text and "own words" in text


async def test_stdio_subagent_sees_no_tool(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        params = stdio_params(r, token=SUB_TOKEN)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            assert (await s.list_tools()).tools == []


async def test_stdio_without_a_server_tells_the_model_what_to_do(tmp_path: Path) -> None:
    from tests.harness import free_port

    url = f"http://127.0.0.1:{free_port()}"
    params = StdioServerParameters(command=sys.executable, args=["-m", "bridge", "mcp"],
                                   env={"ASKBRIDGE_URL": url, "ASKBRIDGE_TOKEN": AGENT_TOKEN,
                                        "PATH": "/usr/bin:/bin"})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        result = await s.call_tool("ask_user", DEPLOY)
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.isError is True
    assert f"not reachable at {url}" in text and "askbridge serve" in text
