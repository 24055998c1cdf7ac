"""The ask_user tool at /mcp over streamable HTTP with the official client: answered, refused,
cancelled when the client leaves."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.adapters.webhook.support import post_reply
from tests.harness import AGENT_TOKEN, SUB_TOKEN, Running, make_config, running, until
from tests.samples import DEPLOY

EXPECTED = {"status": "answered", "answers": {"answers": {"deploy_target": {"answers": ["Canary"]}}}}


async def answer_when_pending(r: Running, text: str, ready: Callable[[], object] = lambda: True
                              ) -> None:
    """Reply `text` once the question is pending and `ready()` holds."""
    await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
    await until(ready)
    async with r.http() as http:
        assert (await post_reply(http, text)).json()["accepted"] is True


async def _terminal(r: Running, qid: Any) -> Any:
    record = await r.bridge.store.get_question(qid)
    return record if record and not record.pending else None


def http_client(r: Running, token: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(headers={"Authorization": f"Bearer {token}",
                                      "X-Askbridge-Session": "mcp-http"},
                             timeout=httpx.Timeout(30, read=60), trust_env=False)


async def test_http_mcp_lists_and_answers(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, http_client(r, AGENT_TOKEN) as client:
        async with streamable_http_client(f"{r.url}/mcp", http_client=client) as (read, write, _):
            async with ClientSession(read, write) as s:
                await s.initialize()
                assert [t.name for t in (await s.list_tools()).tools] == [
                    "ask_user", "request_approval", "approve_tool_use"]
                answering = asyncio.create_task(answer_when_pending(r, "canary"))
                result = await s.call_tool("ask_user", DEPLOY)
                await answering
                assert result.structuredContent == EXPECTED
        line = await r.bridge.store.timeline("assistant", "mcp-http")  # type: ignore[arg-type]
        assert len(line) == 1


async def test_http_mcp_subagent_sees_no_tool_and_bad_token_is_401(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, http_client(r, SUB_TOKEN) as client:
        async with streamable_http_client(f"{r.url}/mcp/", http_client=client) as (read, write, _):
            async with ClientSession(read, write) as s:
                await s.initialize()
                assert (await s.list_tools()).tools == []
        async with r.http() as http:
            response = await http.post("/mcp", json={}, headers={"Authorization": "Bearer x"})
            assert response.status_code == 401


async def test_http_mcp_cancelled_request_cancels_the_question(tmp_path: Path) -> None:
    from mcp import types as mt

    async with running(make_config(tmp_path)) as r, http_client(r, AGENT_TOKEN) as client:
        async with streamable_http_client(f"{r.url}/mcp/", http_client=client) as (read, write, _):
            async with ClientSession(read, write) as s:
                await s.initialize()
                call = asyncio.create_task(s.call_tool("ask_user", DEPLOY))
                pending = await until(lambda: r.bridge.store.pending_questions())
                request_id = s._request_id - 1  # the call's JSON-RPC id
                await s.send_notification(mt.ClientNotification(mt.CancelledNotification(
                    params=mt.CancelledNotificationParams(requestId=request_id))))
                ended = await until(lambda: _terminal(r, pending[0].id))
                assert ended.reason == "cancelled"
                call.cancel()


async def test_server_info_names_askbridge_and_its_version(tmp_path: Path) -> None:
    from bridge.runtime.version import package_version

    async with running(make_config(tmp_path)) as r, http_client(r, AGENT_TOKEN) as client:
        async with streamable_http_client(f"{r.url}/mcp", http_client=client) as (read, write, _):
            async with ClientSession(read, write) as s:
                info = (await s.initialize()).serverInfo
    assert info.name == "askbridge"
    assert info.version == package_version() and info.version[0].isdigit()


# A real MCP SDK client in its own process: it opens a session, calls ask_user and blocks.
VANISHING_CLIENT = """
import asyncio, sys
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

async def main(url, token):
    headers = {"Authorization": f"Bearer {token}", "X-Askbridge-Session": "vanish"}
    async with httpx.AsyncClient(headers=headers, trust_env=False, timeout=None) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, _):
            async with ClientSession(read, write) as s:
                await s.initialize()
                await s.call_tool("ask_user", {"questions": [{"id": "go", "header": "Go",
                    "question": "Ship it?", "options": [{"label": "Yes"}, {"label": "No"}]}]})

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


async def test_http_mcp_client_killed_mid_call_cancels_and_frees_the_session(
        tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", VANISHING_CLIENT, f"{r.url}/mcp", AGENT_TOKEN)
        try:
            pending = await until(lambda: r.bridge.store.pending_questions(), timeout=30)
        finally:
            proc.kill()  # SIGKILL: no DELETE, no notifications/cancelled, just a dead socket
            await proc.wait()
        ended = await until(lambda: _terminal(r, pending[0].id), timeout=15)
        assert ended.reason == "cancelled"
        async with r.client(session="vanish") as again:
            created = await again.create({"questions": DEPLOY["questions"]})
        assert created["id"] != str(pending[0].id)  # the session takes a new ask (no 409)


async def test_http_mcp_deleted_session_cancels_the_question(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, http_client(r, AGENT_TOKEN) as client:
        async with streamable_http_client(f"{r.url}/mcp", http_client=client) as (read, write, _):
            async with ClientSession(read, write) as s:
                await s.initialize()
                call = asyncio.create_task(s.call_tool("ask_user", DEPLOY))
                pending = await until(lambda: r.bridge.store.pending_questions())
                call.cancel()
        # Leaving streamable_http_client sends DELETE for the session (terminate_on_close).
        ended = await until(lambda: _terminal(r, pending[0].id), timeout=5)
        assert ended.reason == "cancelled"


async def test_http_mcp_client_timing_out_then_leaving_cancels_the_question(
        tmp_path: Path) -> None:
    """MCP Inspector's CLI gives up on tools/call after 60 s and exits: no stuck question."""
    from datetime import timedelta

    from mcp.shared.exceptions import McpError

    async with running(make_config(tmp_path)) as r:
        async with http_client(r, AGENT_TOKEN) as client, streamable_http_client(
                f"{r.url}/mcp", http_client=client, terminate_on_close=False) as (read, write, _):
            async with ClientSession(read, write) as s:
                await s.initialize()
                timeout = timedelta(seconds=1)
                try:
                    await s.call_tool("ask_user", DEPLOY, read_timeout_seconds=timeout)
                except McpError as exc:
                    assert "Timed out" in str(exc)
                pending = await r.bridge.store.pending_questions()
                assert len(pending) == 1  # still pending while the client is still there
        # The client left without DELETE or notifications/cancelled: its stream just closed.
        ended = await until(lambda: _terminal(r, pending[0].id), timeout=15)
        assert ended.reason == "cancelled"


def test_a_client_closing_its_stream_is_one_line_not_a_traceback(
        caplog: pytest.LogCaptureFixture) -> None:
    import logging

    import anyio
    from structlog.testing import capture_logs

    from bridge.mcp.http import mcp_mount
    from bridge.mcp.origins import OriginGuard
    from bridge.runtime.config import embedded_defaults

    guard = OriginGuard(embedded_defaults())
    mcp_mount(None, {}, guard)  # type: ignore[arg-type]  # installs the filter, as serving /mcp does
    sdk = logging.getLogger("mcp.server.streamable_http")
    with capture_logs() as said, caplog.at_level(logging.ERROR):
        try:
            raise anyio.ClosedResourceError
        except anyio.ClosedResourceError:
            sdk.exception("Error in standalone SSE writer")
        try:
            raise ValueError("a real bug")
        except ValueError:
            sdk.exception("Error in message router")
    assert [r.getMessage() for r in caplog.records] == ["Error in message router"]
    assert said == [{"event": "mcp_stream_closed", "where": "Error in standalone SSE writer",
                     "log_level": "info"}]
