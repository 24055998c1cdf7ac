"""The ask_user tool at /mcp over streamable HTTP with an SDK 1.x host (2025-11-25, in its own
process: tests/bridge/mcp/old_host.py): answered, refused, cancelled when the host leaves."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.webhook.support import post_reply
from tests.bridge.mcp.old_host import DRIVER, old_host, old_sdk_python
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


def at(r: Running, token: str = AGENT_TOKEN, **options: Any) -> Any:
    return old_host(url=f"{r.url}/mcp", token=token, session="mcp-http", **options)


async def test_http_mcp_lists_and_answers(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, at(r) as host:
        assert [t["name"] for t in await host.tools()] == ["ask_user"]
        answering = asyncio.create_task(answer_when_pending(r, "canary"))
        await host.call(DEPLOY)
        result = await host.result()
        await answering
        assert result["structuredContent"] == EXPECTED
        line = await r.bridge.store.timeline("assistant", "mcp-http")  # type: ignore[arg-type]
        assert len(line) == 1


async def test_http_mcp_subagent_sees_no_tool_and_bad_token_is_401(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        async with old_host(url=f"{r.url}/mcp/", token=SUB_TOKEN) as host:
            assert await host.tools() == []
        async with r.http() as http:
            response = await http.post("/mcp", json={}, headers={"Authorization": "Bearer x"})
            assert response.status_code == 401


async def test_http_mcp_cancelled_request_cancels_the_question(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, at(r) as host:
        await host.call(DEPLOY)
        pending = await until(lambda: r.bridge.store.pending_questions())
        await host.send(op="cancel", tag="c")  # notifications/cancelled with the call's id
        ended = await until(lambda: _terminal(r, pending[0].id))
        assert ended.reason == "cancelled"


async def test_server_info_names_askbridge_and_its_version(tmp_path: Path) -> None:
    from bridge.runtime.version import package_version

    async with running(make_config(tmp_path)) as r, at(r) as host:
        info = host.ready
    assert info["name"] == "askbridge"
    assert info["version"] == package_version() and info["version"][0].isdigit()


async def test_http_mcp_client_killed_mid_call_cancels_and_frees_the_session(
        tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        config = {"transport": "http", "url": f"{r.url}/mcp", "token": AGENT_TOKEN,
                  "session": "vanish"}
        proc = await asyncio.create_subprocess_exec(
            str(await asyncio.to_thread(old_sdk_python)), str(DRIVER), json.dumps(config),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL)
        assert proc.stdin is not None
        proc.stdin.write((json.dumps({"op": "call", "tag": "c", "name": "ask_user", "args": {
            "questions": [{"id": "go", "header": "Go", "question": "Ship it?",
                           "options": [{"label": "Yes"}, {"label": "No"}]}]}}) + "\n").encode())
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
    async with running(make_config(tmp_path)) as r:
        async with at(r) as host:
            await host.call(DEPLOY)
            pending = await until(lambda: r.bridge.store.pending_questions())
            await host.send(op="abandon", tag="c")
        # Leaving streamable_http_client sends DELETE for the session (terminate_on_close).
        ended = await until(lambda: _terminal(r, pending[0].id), timeout=5)
        assert ended.reason == "cancelled"


async def test_http_mcp_client_timing_out_then_leaving_cancels_the_question(
        tmp_path: Path) -> None:
    """MCP Inspector's CLI gives up on tools/call after 60 s and exits: no stuck question."""
    async with running(make_config(tmp_path)) as r:
        async with at(r, terminate=False) as host:
            await host.call(DEPLOY, timeout=1)
            error = await host.expect("error", "c")
            assert "Timed out" in error["error"]
            pending = await r.bridge.store.pending_questions()
            assert len(pending) == 1  # still pending while the client is still there
        # The client left without DELETE or notifications/cancelled: its stream just closed.
        ended = await until(lambda: _terminal(r, pending[0].id), timeout=15)
        assert ended.reason == "cancelled"


async def test_http_mcp_host_reissuing_a_timed_out_call_reattaches(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, at(r) as host:
        await host.call(DEPLOY, tag="first", timeout=1)
        assert "Timed out" in (await host.expect("error", "first"))["error"]
        first = await r.bridge.store.pending_questions()
        await host.call(DEPLOY, tag="again")
        await answer_when_pending(r, "canary")
        result = await host.result("again")
        line = await r.bridge.store.timeline("assistant", "mcp-http")  # type: ignore[arg-type]
    assert result["structuredContent"] == EXPECTED
    assert [q.id for q in line] == [first[0].id]  # the same question: asked once


def test_a_client_closing_its_stream_is_one_line_not_a_traceback(
        caplog: pytest.LogCaptureFixture) -> None:
    import logging

    import anyio
    from structlog.testing import capture_logs

    from bridge.mcp.http import mcp_mount
    from bridge.mcp.origins import OriginGuard
    from bridge.runtime.config import embedded_defaults

    guard = OriginGuard(embedded_defaults())
    mcp_mount(None, None, {}, guard, "k" * 32)  # type: ignore[arg-type]  # installs the filter, as serving /mcp does
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
