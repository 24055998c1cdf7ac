"""A 2025-11-25 MCP session belongs to the agent that opened it, and an agent holds at most
`[mcp] sessions_per_agent` of them: tested with an SDK 1.x host and plain HTTP."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from structlog.testing import capture_logs

from bridge.store.records import QuestionRecord
from tests.adapters.webhook.support import post_reply
from tests.bridge.mcp.old_host import old_host
from tests.bridge.mcp_wire import call, headers, messages, open_session
from tests.harness import AGENT_TOKEN, SUB_TOKEN, Running, make_config, running, until
from tests.samples import DEPLOY


async def pending(r: Running) -> list[QuestionRecord]:
    return await r.bridge.store.pending_questions()


async def post(http: httpx.AsyncClient, token: str, session_id: str,
               body: dict[str, object] | bytes) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return await http.post("/mcp", headers=headers(token, session_id), content=content)


async def test_another_agents_token_with_a_session_id_is_an_unknown_session(
        tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http, \
            old_host(url=f"{r.url}/mcp", token=AGENT_TOKEN) as host:
        owned = host.ready["session_id"]
        assert owned is not None
        unknown = await post(http, SUB_TOKEN, "0" * 32, call("ask_user", DEPLOY))
        assert unknown.status_code == 404

        # The subagent asks in the main agent's session: refused as unknown, nothing asked.
        stolen = await asyncio.wait_for(post(http, SUB_TOKEN, owned, call("ask_user", DEPLOY)),
                                        10)
        assert (stolen.status_code, stolen.json()) == (404, unknown.json())
        assert await pending(r) == []

        # The owner's call waits; the subagent can neither cancel it nor delete the session.
        await host.call(DEPLOY)
        await until(lambda: pending(r))
        cancel: dict[str, object] = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": 1}}
        refused = await post(http, SUB_TOKEN, owned, cancel)
        assert (refused.status_code, refused.json()) == (404, unknown.json())
        deleted = await http.delete("/mcp", headers=headers(SUB_TOKEN, owned))
        assert (deleted.status_code, deleted.json()) == (404, unknown.json())
        assert len(await pending(r)) == 1
        assert (await post_reply(http, "canary")).json()["accepted"] is True
        result = await host.result(timeout=10)
        assert result["structuredContent"] == {"status": "answered", "answers": {"answers": {
            "deploy_target": {"answers": ["Canary"]}}}}


def limited(tmp_path: Path, per_agent: int) -> object:
    return make_config(tmp_path, mcp={"sessions_per_agent": per_agent})


async def alive(http: httpx.AsyncClient, token: str, session_id: str) -> bool:
    response = await post(http, token, session_id, {"jsonrpc": "2.0", "id": 9, "method": "ping"})
    assert response.status_code in (200, 404), response.text
    return response.status_code == 200


async def test_an_agent_holds_at_most_its_limit_and_the_oldest_idle_goes_first(
        tmp_path: Path) -> None:
    async with running(limited(tmp_path, 4)) as r, r.http() as http:  # type: ignore[arg-type]
        flood = [await open_session(http, SUB_TOKEN) for _ in range(10)]
        assert [await alive(http, SUB_TOKEN, s) for s in flood] == [False] * 6 + [True] * 4
        # The flood crowded out no one: the main agent opens and uses its own sessions.
        mine = [await open_session(http, AGENT_TOKEN) for _ in range(4)]
        assert all([await alive(http, AGENT_TOKEN, s) for s in mine])
        # A session with a call in flight is not idle: the next oldest one makes the room.
        busy = asyncio.create_task(post(http, AGENT_TOKEN, mine[0], call("ask_user", DEPLOY)))
        await until(lambda: pending(r))
        await alive(http, AGENT_TOKEN, mine[1])  # used just now: no longer the oldest idle
        newest = await open_session(http, AGENT_TOKEN)
        assert [await alive(http, AGENT_TOKEN, s) for s in [*mine, newest]] == [
            True, True, False, True, True]
        assert (await post_reply(http, "canary")).json()["accepted"] is True
        answered = messages(await asyncio.wait_for(busy, 10))[-1]["result"]
        assert answered["structuredContent"]["status"] == "answered"


async def test_an_oversize_chunked_body_is_a_413_and_one_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    config = make_config(tmp_path, server={"max_body_bytes": 1024})

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "'
        for _ in range(64):
            yield b"x" * 256
        yield b'"}}'

    async with running(config) as r, r.http() as http:
        with capture_logs() as said, caplog.at_level(logging.DEBUG):
            response = await http.post("/mcp", content=chunks(), headers=headers(AGENT_TOKEN))
            assert response.status_code == 413, response.text
            assert response.json()["error"] == "payload_too_large"
            await until(lambda: any(e["event"] == "mcp_body_not_received" for e in said))
        tracebacks = [rec.getMessage() for rec in caplog.records if rec.exc_info]
        assert tracebacks == []
        assert [e["event"] for e in said if e["log_level"] in ("warning", "error")] == []
