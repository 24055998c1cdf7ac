"""2026-07-28 has no session, and a broken stream is not a stop: a question is cancelled only when
no call has waited on it for `[mcp] reattach_seconds`; a form out with the host keeps it open.
(2025-11-25's stops are in test_http.py and test_sessions.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import mcp.types as mt
import pytest
from mcp.shared.exceptions import MCPError

from tests.bridge.mcp.new_host import answer, answer_remotely, new_host
from tests.harness import Running, make_config, running, until
from tests.samples import DEPLOY

REATTACH = 1.0


def config(tmp_path: Path) -> Any:
    return make_config(tmp_path, mcp={"reattach_seconds": REATTACH})


async def only(r: Running) -> Any:
    line = await r.bridge.store.timeline("assistant", "mcp")  # type: ignore[arg-type]
    assert len(line) == 1
    return line[0]


async def test_a_call_cut_short_is_cancelled_once_no_call_waits(tmp_path: Path) -> None:
    async with running(config(tmp_path)) as r, new_host(f"{r.url}/mcp") as host:
        with pytest.raises(MCPError):
            await host.call_tool("ask_user", DEPLOY, read_timeout_seconds=0.5)
        assert (await only(r)).pending  # the stream broke: not a stop
        record = await until(lambda: _ended(r), timeout=10)
    assert record.reason == "cancelled"


async def test_a_call_waiting_again_keeps_the_question(tmp_path: Path) -> None:
    async with running(config(tmp_path)) as r, new_host(f"{r.url}/mcp") as host:
        with pytest.raises(MCPError):
            await host.call_tool("ask_user", DEPLOY, read_timeout_seconds=0.5)
        call = asyncio.create_task(host.call_tool("ask_user", DEPLOY))
        # Three times reattach_seconds with a call waiting: the watcher must leave it be.
        await asyncio.sleep(3 * REATTACH)
        assert (await only(r)).pending
        await answer_remotely(r, "canary")
        result = await call
    assert answer(result)["status"] == "answered"


async def test_a_form_out_with_the_host_keeps_the_question_open(tmp_path: Path) -> None:
    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        # No call waits while the person fills the form in, for longer than reattach_seconds.
        await asyncio.sleep(3 * REATTACH)
        return mt.ElicitResult(action="accept", content={"deploy_target": "Canary"})

    async with running(config(tmp_path)) as r, new_host(f"{r.url}/mcp", form=form) as host:
        result = await host.call_tool("ask_user", DEPLOY)
    assert answer(result)["answers"]["answers"]["deploy_target"]["answers"] == ["Canary"]


async def _ended(r: Running) -> Any:
    record = await only(r)
    return None if record.pending else record


GO = {"action": "Deploy web to production", "tool": "deploy", "arguments": {"env": "production"}}


async def test_an_approval_waits_for_the_host_to_call_again_like_a_question(
        tmp_path: Path) -> None:
    """`request_approval` at 2026-07-28 as `ask_user`: the broken stream is not a stop, the
    call again re-attaches to the same approval (nobody is asked twice) and returns its
    decision; with no call waiting for `reattach_seconds` it is cancelled."""
    async with running(config(tmp_path)) as r, new_host(f"{r.url}/mcp") as host:
        with pytest.raises(MCPError):
            await host.call_tool("request_approval", GO, read_timeout_seconds=0.5)
        call = asyncio.create_task(host.call_tool("request_approval", GO))
        await asyncio.sleep(3 * REATTACH)
        first = await only(r)
        assert first.pending
        await answer_remotely(r, "approve")
        result = await call
        assert answer(result)["status"] == "approved"
        assert [q.id for q in await r.bridge.store.timeline(
            "assistant", "mcp")] == [first.id]  # type: ignore[arg-type]

        with pytest.raises(MCPError):
            await host.call_tool("request_approval", {**GO, "arguments": {"env": "staging"}},
                                 read_timeout_seconds=0.5)
        line = await r.bridge.store.timeline("assistant", "mcp")  # type: ignore[arg-type]
        assert line[0].pending
        approval = await until(lambda: _approval_ended(r, line[0].id), timeout=10)
    assert approval.result.to_json() == {"status": "no_answer", "reason": "cancelled"}


async def _approval_ended(r: Running, approval_id: Any) -> Any:
    approval = await r.bridge.approvals.get(approval_id)
    return None if approval.pending else approval
