"""`ask_user` at /mcp with SDK 2.x hosts of both revisions: answered from a remote surface or
from the host's own form (2026-07-28 `input_required`, 2025-11-25 `elicitation/create`), and the
race between them; re-attaching; who may call."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import mcp.types as mt
import pytest
from mcp.shared.exceptions import MCPError

from tests.bridge.mcp.new_host import (
    MODERN,
    MODES,
    answer,
    answer_remotely,
    ended,
    fast_env,
    host_form_off,
    late_form,
    new_host,
    no_form,
)
from tests.harness import SUB_TOKEN, Running, make_config, running, until
from tests.samples import BOTH, DEPLOY

CANARY = {"status": "answered", "answers": {"answers": {"deploy_target": {"answers": ["Canary"]}}}}


def chose(label: str) -> dict[str, Any]:
    return {"status": "answered", "answers": {"answers": {"deploy_target": {"answers": [label]}}}}


@pytest.mark.parametrize("mode", MODES)
async def test_lists_and_answers_from_a_remote_surface(tmp_path: Path, mode: str) -> None:
    async with running(make_config(tmp_path)) as r, new_host(f"{r.url}/mcp", mode=mode) as host:
        assert host.protocol_version == (MODERN if mode == MODERN else "2025-11-25")
        assert [t.name for t in (await host.list_tools()).tools] == [
            "ask_user", "request_approval", "approve_tool_use"]
        answering = asyncio.create_task(answer_remotely(r, "canary"))
        result = await host.call_tool("ask_user", DEPLOY)
        await answering
    assert answer(result) == CANARY


@pytest.mark.parametrize("mode", MODES)
async def test_the_host_form_answers_and_the_remote_prompt_is_finalized(
        tmp_path: Path, mode: str) -> None:
    shown: list[mt.ElicitRequestParams] = []

    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        shown.append(params)
        return mt.ElicitResult(action="accept", content={"deploy_target": "Canary"})

    async with running(make_config(tmp_path)) as r, \
            new_host(f"{r.url}/mcp", mode=mode, form=form) as host:
        result = await host.call_tool("ask_user", DEPLOY)
        record = await until(lambda: ended(r))
    assert answer(result) == CANARY
    assert len(shown) == 1 and "Where should I deploy?" in shown[0].message
    assert record.answered_by is not None and record.answered_by.surface == "mcp"


async def test_the_form_takes_free_text_and_several_choices(tmp_path: Path) -> None:
    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        return mt.ElicitResult(action="accept", content={
            "deploy_target_other": "the moon", "checks": ["Lint", "Build"]})

    async with running(make_config(tmp_path)) as r, new_host(f"{r.url}/mcp", form=form) as host:
        result = await host.call_tool("ask_user", BOTH)
    assert answer(result)["answers"]["answers"] == {
        "deploy_target": {"answers": ["the moon"]}, "checks": {"answers": ["Lint", "Build"]}}


async def test_a_form_answer_missing_a_question_is_asked_again_saying_why(tmp_path: Path) -> None:
    shown: list[str] = []

    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        shown.append(params.message)
        content = {} if len(shown) == 1 else {"deploy_target": "Canary"}
        return mt.ElicitResult(action="accept", content=content)

    async with running(make_config(tmp_path)) as r, new_host(f"{r.url}/mcp", form=form) as host:
        result = await host.call_tool("ask_user", DEPLOY)
    assert answer(result) == CANARY
    assert len(shown) == 2 and "choose an option or write your own answer" in shown[1]


@pytest.mark.parametrize("mode", MODES)
async def test_decline_is_skip(tmp_path: Path, mode: str) -> None:
    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        return mt.ElicitResult(action="decline")

    async with running(make_config(tmp_path)) as r, \
            new_host(f"{r.url}/mcp", mode=mode, form=form) as host:
        result = await host.call_tool("ask_user", DEPLOY)
    assert answer(result) == {"status": "no_answer", "reason": "skipped"}


@pytest.mark.parametrize("mode", MODES)
async def test_a_dismissed_form_leaves_the_question_to_the_remote_surfaces(
        tmp_path: Path, mode: str) -> None:
    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        return mt.ElicitResult(action="cancel")

    async with running(make_config(tmp_path)) as r, \
            new_host(f"{r.url}/mcp", mode=mode, form=form) as host:
        answering = asyncio.create_task(answer_remotely(r, "production"))
        result = await host.call_tool("ask_user", DEPLOY)
        await answering
    assert answer(result) == chose("Production")


@pytest.mark.parametrize("mode", MODES)
async def test_a_remote_answer_first_makes_the_late_form_input_ignored(
        tmp_path: Path, mode: str) -> None:
    box: list[Running] = []
    form = late_form(box)

    async with running(make_config(tmp_path)) as r, \
            new_host(f"{r.url}/mcp", mode=mode, form=form) as host:
        box.append(r)
        result = await host.call_tool("ask_user", DEPLOY)
        record = await ended(r)
    assert answer(result) == chose("Production")
    assert record.answered_by.surface == "webhook:sms:+100"


async def test_host_form_off_asks_only_the_remote_surfaces(tmp_path: Path) -> None:
    config, form = host_form_off(tmp_path), no_form
    async with running(config) as r, new_host(f"{r.url}/mcp", form=form) as host:
        answering = asyncio.create_task(answer_remotely(r, "canary"))
        result = await host.call_tool("ask_user", DEPLOY)
        await answering
    assert answer(result) == CANARY


async def test_a_host_reissuing_the_call_reattaches_with_the_time_left(tmp_path: Path) -> None:
    """The host gives up on its side (its tool timeout) and calls again: same question, its
    clock running since the first call, progress telling the time left. (A 2.x host on
    2025-11-25 cancels the request as it gives up, which cancels the question there, as §3
    says; a 1.x host does not: tests/bridge/mcp/test_http.py re-attaches one.)"""
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async with running(make_config(tmp_path), env=fast_env()) as r, \
            new_host(f"{r.url}/mcp") as host:
        with pytest.raises(MCPError):
            await host.call_tool("ask_user", DEPLOY, read_timeout_seconds=1)
        first = await r.bridge.store.pending_questions()
        assert len(first) == 1
        call = asyncio.create_task(host.call_tool("ask_user", DEPLOY, progress_callback=on_progress))
        await until(lambda: updates)
        await answer_remotely(r, "canary")
        result = await call
        line = await r.bridge.store.timeline("assistant", "mcp")  # type: ignore[arg-type]
    assert answer(result) == CANARY
    assert [q.id for q in line] == [first[0].id]  # asked once
    waited, total, message = updates[0]
    assert waited >= 1 and total == 900  # the wait was not restarted
    assert message is not None and f"about {int(900 - waited)} s left" in message


@pytest.mark.parametrize("mode", MODES)
async def test_a_subagent_sees_no_tool_and_its_call_is_refused(tmp_path: Path, mode: str) -> None:
    async with running(make_config(tmp_path)) as r, \
            new_host(f"{r.url}/mcp", mode=mode, token=SUB_TOKEN) as host:
        assert (await host.list_tools()).tools == []
        result = await host.call_tool("ask_user", DEPLOY)
        assert result.is_error and await r.bridge.store.pending_questions() == []


async def test_another_agents_token_cannot_use_a_request_state(tmp_path: Path) -> None:
    """2026-07-28 has no session to own: the retry's requestState is bound to the agent."""
    async with running(make_config(tmp_path)) as r:
        async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
            raise AssertionError("not reached")

        async with new_host(f"{r.url}/mcp", form=form) as host:
            first = await host.session.call_tool("ask_user", DEPLOY, allow_input_required=True)
        assert isinstance(first, mt.InputRequiredResult) and first.request_state
        replay: dict[str, mt.InputResponse] = {"answer": mt.ElicitResult(action="decline")}
        async with new_host(f"{r.url}/mcp", token=SUB_TOKEN, form=form) as other:
            with pytest.raises(MCPError, match="Invalid or expired requestState"):
                await other.session.call_tool("ask_user", DEPLOY, input_responses=replay,
                                              request_state=first.request_state)
        pending = await r.bridge.store.pending_questions()
    assert len(pending) == 1  # not skipped by the other agent


async def test_a_remote_answer_puts_away_the_hosts_open_form(tmp_path: Path) -> None:
    """2025-11-25: a remote answer wins while the host's form is still open: the server
    withdraws its `elicitation/create` (notifications/cancelled), so the host closes the form
    instead of showing a question that has ended."""
    shown, withdrawn = asyncio.Event(), asyncio.Event()

    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        shown.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            withdrawn.set()
            raise
        raise AssertionError("unreachable")

    async with running(make_config(tmp_path)) as r, \
            new_host(f"{r.url}/mcp", mode="legacy", form=form) as host:
        calling = asyncio.create_task(host.call_tool("ask_user", DEPLOY))
        await asyncio.wait_for(shown.wait(), 30)
        await answer_remotely(r, "production")
        result = await asyncio.wait_for(calling, 30)
        await asyncio.wait_for(withdrawn.wait(), 5)
    assert answer(result) == chose("Production")
