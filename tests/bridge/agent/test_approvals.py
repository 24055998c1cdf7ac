"""The Python client's approvals against the real server: approve blocks for the decision,
request_approval returns at once and is waited for, read, or cancelled; results are typed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.adapters.webhook.support import post_reply
from tests.harness import Running, make_config, running, until

DEPLOY = {"command": "./deploy.sh --build 1432 --env prod"}


async def decide_when_pending(r: Running, text: str) -> None:
    """The person on `sms` replies `text` once the approval's prompt has reached them."""
    await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
    async with r.http() as http:
        reply = (await post_reply(http, text)).json()
        assert reply["accepted"] is True, reply


async def pending_id(r: Running) -> Any:
    pending = await until(lambda: r.bridge.store.pending_questions())
    return pending[0].id


async def test_approve_blocks_until_a_person_approves(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as client:
        deciding = asyncio.create_task(decide_when_pending(r, "approve"))
        result = await client.approve("Deploy 1432 to prod", tool="Bash", arguments=DEPLOY,
                                      risk="high")
        await deciding
        assert result.status == "approved"
        assert result.arguments == DEPLOY and result.edited is False and result.scope == "once"
        assert result.decided_by and result.decided_by[0].surface == "webhook:sms:+100"


async def test_request_approval_returns_at_once_then_waits_for_a_rejection(
        tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client(session="ops") as client:
        created = await client.request_approval("Deploy 1432 to prod", tool="Bash",
                                                arguments=DEPLOY)
        assert created["status"] == "pending" and created["id"] and created["expiresAt"]
        assert await client.approval_result(created["id"]) is None  # still pending
        record = await client.approval(created["id"])
        assert record["id"] == created["id"] and record["status"] == "pending"
        await decide_when_pending(r, "reject not on a Friday")
        result = await client.wait_approval(created["id"])
        assert result.status == "rejected" and result.reason == "not on a Friday"
        assert result.to_json()["decidedBy"][0]["surface"] == "webhook:sms:+100"


async def test_cancel_approval_and_a_stopped_wait_both_cancel(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as client:
        created = await client.request_approval("Rotate the keys")
        result = await client.cancel_approval(created["id"])
        assert result.to_json() == {"status": "no_answer", "reason": "cancelled"}
        waiting = asyncio.create_task(client.approve("Rotate the keys again"))
        approval = await pending_id(r)
        waiting.cancel()
        ended = await until(lambda: _ended(client, approval))
        assert ended.to_json() == {"status": "no_answer", "reason": "cancelled"}


async def _ended(client: Any, approval: str) -> Any:
    return await client.approval_result(approval)


async def test_a_server_restarting_mid_approve_is_waited_out_for_the_same_approval() -> None:
    import httpx

    from bridge.agent.client import AskClient

    seen: list[str] = []
    approved = {"status": "approved", "arguments": {}, "edited": False, "scope": "once",
                "decidedBy": [{"surface": "web", "user": "web"}]}

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if request.url.path == "/v1/sessions/main/approve":
            return httpx.Response(503, json={"error": "restarting", "id": "a1", "details": [
                {"loc": "server", "msg": "askbridge is restarting"}]})
        if len(seen) == 2:  # the first poll finds it down
            raise httpx.ConnectError("connection refused")
        return httpx.Response(200, json=approved)

    async with AskClient("http://bridge.test", "token",
                         transport=httpx.MockTransport(server)) as client:
        result = await client.approve("Deploy")
    assert result.to_json() == approved
    assert seen == ["POST /v1/sessions/main/approve", "GET /v1/approvals/a1/result",
                    "GET /v1/approvals/a1/result"]
