"""`askbridge mcp` (stdio) with SDK 2.x hosts of both revisions: the host's own form races the
remote surfaces as at /mcp (accept answers, decline skips, a remote answer first makes the late
form harmless, `host_form = "off"` offers none); its answer goes in over HTTP (`host-answer`),
which only the asking agent may use; a re-attached call's progress counts from the question."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp.types as mt
import pytest
from mcp import Client, StdioServerParameters

from tests.bridge.mcp.apps_host import OTHER_TOKEN, two_agents
from tests.bridge.mcp.new_host import (
    MODES,
    Form,
    answer,
    answer_remotely,
    ended,
    host_form_off,
    late_form,
    no_form,
)
from tests.harness import AGENT_TOKEN, SUB_TOKEN, Running, make_config, running, until
from tests.samples import DEPLOY


def chose(label: str) -> dict[str, Any]:
    return {"status": "answered", "answers": {"answers": {"deploy_target": {"answers": [label]}}}}


@asynccontextmanager
async def stdio_host(r: Running, mode: str, form: Form | None = None) -> AsyncIterator[Client]:
    """An SDK 2.x host running `askbridge mcp` as its stdio server; with `form`, it declares
    form elicitation and answers with it."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "bridge", "mcp"], env={
        "ASKBRIDGE_URL": r.url, "ASKBRIDGE_TOKEN": AGENT_TOKEN, "ASKBRIDGE_SESSION": "mcp",
        "ASKBRIDGE_PROGRESS_SECONDS": "0.2", "PATH": "/usr/bin:/bin"})
    callback = None
    if form is not None:
        async def callback(context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
            return await form(params)
    async with Client(params, mode=mode, elicitation_callback=callback) as host:
        yield host


@pytest.mark.parametrize("mode", MODES)
async def test_stdio_host_form_answers(tmp_path: Path, mode: str) -> None:
    shown: list[str] = []

    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        shown.append(params.message)
        return mt.ElicitResult(action="accept", content={"deploy_target": "Canary"})

    async with running(make_config(tmp_path)) as r, stdio_host(r, mode, form) as host:
        result = await host.call_tool("ask_user", DEPLOY)
        record = await until(lambda: ended(r))
    assert answer(result) == chose("Canary")
    assert len(shown) == 1 and "Where should I deploy?" in shown[0]
    assert record.answered_by.surface == "mcp" and record.answered_by.user == "host"


async def test_stdio_host_form_speaks_the_agents_language(tmp_path: Path) -> None:
    titles: list[str] = []

    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        assert isinstance(params, mt.ElicitRequestFormParams)
        titles.append(params.requested_schema["properties"]["deploy_target_other"]["title"])
        return mt.ElicitResult(action="decline")

    config = make_config(tmp_path)
    config.agents[0] = config.agents[0].model_copy(update={"locale": "id"})
    async with running(config) as r, stdio_host(r, "legacy", form) as host:
        await host.call_tool("ask_user", DEPLOY)
    assert titles == ["Deploy: jawaban Anda sendiri"]


@pytest.mark.parametrize("mode", MODES)
async def test_stdio_host_form_decline_is_skip(tmp_path: Path, mode: str) -> None:
    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        return mt.ElicitResult(action="decline")

    async with running(make_config(tmp_path)) as r, stdio_host(r, mode, form) as host:
        result = await host.call_tool("ask_user", DEPLOY)
    assert answer(result) == {"status": "no_answer", "reason": "skipped"}


@pytest.mark.parametrize("mode", MODES)
async def test_stdio_dismissed_form_waits_for_the_remote_surfaces(tmp_path: Path,
                                                                   mode: str) -> None:
    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        return mt.ElicitResult(action="cancel")

    async with running(make_config(tmp_path)) as r, stdio_host(r, mode, form) as host:
        answering = asyncio.create_task(answer_remotely(r, "production"))
        result = await host.call_tool("ask_user", DEPLOY)
        await answering
    assert answer(result) == chose("Production")


@pytest.mark.parametrize("mode", MODES)
async def test_stdio_remote_answer_first_makes_the_late_form_harmless(tmp_path: Path,
                                                                     mode: str) -> None:
    box: list[Running] = []
    async with running(make_config(tmp_path)) as r:
        box.append(r)
        async with stdio_host(r, mode, late_form(box)) as host:
            result = await host.call_tool("ask_user", DEPLOY)
        winner = (await ended(r)).answered_by.surface
    assert (answer(result), winner) == (chose("Production"), "webhook:sms:+100")


async def test_stdio_host_form_off_offers_no_form(tmp_path: Path) -> None:
    config, form = host_form_off(tmp_path), no_form
    for mode in MODES:
        async with running(config) as r, stdio_host(r, mode, form) as host:
            answering = asyncio.create_task(answer_remotely(r, "canary"))
            result = await host.call_tool("ask_user", DEPLOY)
            await answering
        assert answer(result) == chose("Canary")


async def test_only_the_asking_agent_hands_in_its_host_form_answer(tmp_path: Path) -> None:
    config, env = two_agents(tmp_path)
    helper = make_config(tmp_path).agents[1]  # the subagent, SUB_TOKEN
    config = config.model_copy(update={"agents": [*config.agents, helper]})
    mine = {"Authorization": f"Bearer {AGENT_TOKEN}"}
    body = {"answers": {"deploy_target": ["Canary"]}}
    async with running(config, env=env) as r, r.http() as http:
        asked = (await http.post("/v1/sessions/mcp/questions", json=DEPLOY, headers=mine)).json()
        url = f"/v1/questions/{asked['id']}/host-answer"
        theirs = await http.post(url, json=body, headers={"Authorization": f"Bearer {OTHER_TOKEN}"})
        sub = await http.post(url, json=body, headers={"Authorization": f"Bearer {SUB_TOKEN}"})
        unknown = await http.post("/v1/questions/q_nope/host-answer", json=body, headers=mine)
        bad = await http.post(url, json={"answers": "Canary"}, headers=mine)
        before = await r.bridge.store.get_question(asked["id"])
        assert before is not None and before.pending  # nothing changed
        taken = await http.post(url, json=body, headers=mine)
        record = await r.bridge.store.get_question(asked["id"])
    assert theirs.status_code == 404 and unknown.status_code == 404
    assert "no question" in theirs.json()["details"][0]["msg"]
    assert sub.status_code == 403
    assert bad.status_code == 422 and "skip" in bad.json()["details"][0]["msg"]
    assert taken.json() == {"accepted": True, "message": None}
    assert record is not None and record.result is not None and record.answered_by is not None
    assert record.result.to_json() == chose("Canary")
    assert record.answered_by.surface == "mcp" and record.answered_by.user == "host"


async def test_me_says_whether_the_host_form_is_offered_and_in_what_language(
        tmp_path: Path) -> None:
    config = host_form_off(tmp_path)
    config.agents[0] = config.agents[0].model_copy(update={"locale": "id"})
    async with running(config) as r, r.http() as http:
        me = (await http.get("/v1/me", headers={"Authorization": f"Bearer {AGENT_TOKEN}"})).json()
    assert (me["hostForm"], me["locale"]) == ("off", "id")


@pytest.mark.parametrize("mode", MODES)
async def test_stdio_reattached_progress_counts_from_the_question(tmp_path: Path,
                                                                  mode: str) -> None:
    """The host gives up on its side and calls again: progress tells the question's time left,
    not a fresh call's."""
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async with running(make_config(tmp_path)) as r, r.http() as http:
        asked = (await http.post("/v1/sessions/mcp/questions", json=DEPLOY,
                                 headers={"Authorization": f"Bearer {AGENT_TOKEN}"})).json()
        await asyncio.sleep(2)  # the question ages before the host (re-)issues its call
        async with stdio_host(r, mode) as host:
            call = asyncio.create_task(host.call_tool("ask_user", DEPLOY,
                                                      progress_callback=on_progress))
            await until(lambda: updates)
            record = await r.bridge.store.get_question(asked["id"])
            await answer_remotely(r, "canary")
            result = await call
    assert answer(result) == chose("Canary")
    waited, total, message = updates[0]
    assert record is not None
    true_left = (record.expires_at - record.created_at) / 1000 - 2
    assert waited >= 2 and total == 900
    assert message is not None
    left = int(message.split("about ")[1].split(" s left")[0])
    assert left <= true_left


async def test_host_answer_cannot_decide_the_agents_own_approval(tmp_path: Path) -> None:
    """`host-answer` is for the asking agent's own form on its own question; an approval is a
    person's to decide, so the agent's token cannot approve it (nor skip it) there."""
    mine = {"Authorization": f"Bearer {AGENT_TOKEN}"}
    async with running(make_config(tmp_path)) as r, r.http() as http:
        asked = (await http.post("/v1/sessions/mcp/approvals", json={
            "action": "Drop the production database"}, headers=mine)).json()
        record = await r.bridge.store.get_question(asked["id"])
        assert record is not None and record.approval is not None
        approve = record.request.questions[0].options[0].label
        url = f"/v1/questions/{asked['id']}/host-answer"
        tried = [await http.post(url, json=body, headers=mine)
                 for body in ({"answers": {"decision": [approve]}}, {"skip": True})]
        after = await r.bridge.store.get_approval(asked["id"])
    assert after is not None and after.pending, after
    assert all(t.status_code >= 400 or t.json()["accepted"] is False for t in tried)
