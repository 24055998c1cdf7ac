"""The question card for MCP Apps hosts: listed for them only, readable, and answering only the
calling agent's own question."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bridge.mcp.apps import ANSWER_TOOL, CARD_MIME, CARD_URI
from tests.bridge.mcp.apps_host import APPS, OTHER_TOKEN, two_agents
from tests.bridge.mcp_wire import call, headers, messages, open_session, rpc, stateless
from tests.harness import AGENT_TOKEN, make_config, running, until
from tests.samples import BOTH, DEPLOY

EXPECTED = {"status": "answered", "answers": {"answers": {"deploy_target": {"answers": ["Canary"]}}}}


async def test_an_apps_host_gets_the_card_and_an_app_only_answer_tool(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        plain = await open_session(http, AGENT_TOKEN)
        apps = await open_session(http, AGENT_TOKEN, APPS)
        listed = (await rpc(http, AGENT_TOKEN, plain, "tools/list", {}))["result"]["tools"]
        assert [t["name"] for t in listed] == ["ask_user", "request_approval", "approve_tool_use"]
        tools = {t["name"]: t for t in
                 (await rpc(http, AGENT_TOKEN, apps, "tools/list", {}))["result"]["tools"]}
        assert tools["ask_user"]["_meta"] == {"ui": {"resourceUri": CARD_URI}}
        assert tools[ANSWER_TOOL]["_meta"]["ui"] == {"resourceUri": CARD_URI,
                                                     "visibility": ["app"]}
        read = (await rpc(http, AGENT_TOKEN, apps, "resources/read", {"uri": CARD_URI}))
        content = read["result"]["contents"][0]
        assert content["mimeType"] == CARD_MIME
        html = content["text"]
        assert html.startswith("<!DOCTYPE html>") and "--accent" in html  # the web UI's stylesheet
        assert "Pilih satu" in html  # its words in Indonesian too
        assert "{{" not in html


async def test_the_card_answers_the_callers_question_and_no_other_agents(tmp_path: Path) -> None:
    config, env = two_agents(tmp_path)
    async with running(config, env) as r, r.http() as http:
        mine = await open_session(http, AGENT_TOKEN, APPS)
        theirs = await open_session(http, OTHER_TOKEN, APPS)
        asking = asyncio.create_task(http.post("/mcp", headers=headers(AGENT_TOKEN, mine),
                                               content=call("ask_user", BOTH), timeout=60))
        [pending] = await until(lambda: r.bridge.store.pending_questions())
        answers = {"deploy_target": ["Canary"], "checks": ["Lint", "my own check"]}
        # Another agent's token: by id or by its own session, nothing to answer, nothing changes.
        for arguments in ({"answers": answers, "question_id": pending.id}, {"answers": answers},
                          {"answers": None, "question_id": pending.id}):
            refused = await rpc(http, OTHER_TOKEN, theirs, "tools/call",
                                {"name": ANSWER_TOOL, "arguments": arguments}, 2)
            assert refused["result"]["isError"] is True
            assert "no pending question of this agent" in refused["result"]["content"][0]["text"]
        assert [q.id for q in await r.bridge.store.pending_questions()] == [pending.id]
        # The caller's own card: an incomplete answer is refused and says what is missing.
        partial = await rpc(http, AGENT_TOKEN, mine, "tools/call", {
            "name": ANSWER_TOOL, "arguments": {"answers": {"deploy_target": ["Canary"]}}}, 3)
        assert partial["result"]["isError"] is True
        assert "Checks" in partial["result"]["content"][0]["text"]
        done = await rpc(http, AGENT_TOKEN, mine, "tools/call",
                         {"name": ANSWER_TOOL, "arguments": {"answers": answers}}, 4)
        assert done["result"].get("isError") is not True, done
        result = messages(await asyncio.wait_for(asking, 10))[-1]["result"]
        assert result["structuredContent"] == {"status": "answered", "answers": {"answers": {
            "deploy_target": {"answers": ["Canary"]},
            "checks": {"answers": ["Lint", "my own check"]}}}}
        record = await r.bridge.store.get_question(pending.id)
        assert record is not None and record.answered_by is not None
        assert record.answered_by.surface == "mcp:app"
        late = await rpc(http, AGENT_TOKEN, mine, "tools/call",
                         {"name": ANSWER_TOOL, "arguments": {"answers": None}}, 5)
        assert late["result"]["isError"] is True


async def test_skipping_from_the_card_ends_the_call_with_no_answer(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        mine = await open_session(http, AGENT_TOKEN, APPS)
        asking = asyncio.create_task(http.post("/mcp", headers=headers(AGENT_TOKEN, mine),
                                               content=call("ask_user", DEPLOY), timeout=60))
        [pending] = await until(lambda: r.bridge.store.pending_questions())
        skipped = await rpc(http, AGENT_TOKEN, mine, "tools/call", {
            "name": ANSWER_TOOL, "arguments": {"answers": None, "question_id": pending.id}}, 2)
        assert skipped["result"].get("isError") is not True, skipped
        result = messages(await asyncio.wait_for(asking, 10))[-1]["result"]
        assert result["structuredContent"] == {"status": "no_answer", "reason": "skipped"}


async def test_the_card_works_for_a_stateless_2026_host(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        plain = (await stateless(http, AGENT_TOKEN, "tools/list", {}))["result"]["tools"]
        assert [t["name"] for t in plain] == ["ask_user", "request_approval", "approve_tool_use"]
        tools = (await stateless(http, AGENT_TOKEN, "tools/list", {}, APPS))["result"]["tools"]
        assert [t["name"] for t in tools] == [
            "ask_user", "request_approval", "approve_tool_use", ANSWER_TOOL]
        asking = asyncio.create_task(stateless(http, AGENT_TOKEN, "tools/call", {
            "name": "ask_user", "arguments": DEPLOY}, APPS))
        await until(lambda: r.bridge.store.pending_questions())
        done = await stateless(http, AGENT_TOKEN, "tools/call", {
            "name": ANSWER_TOOL, "arguments": {"answers": {"deploy_target": ["Canary"]}}}, APPS, 2)
        assert done["result"].get("isError") is not True, done
        result = (await asyncio.wait_for(asking, 10))["result"]
        assert result["structuredContent"] == EXPECTED


async def test_the_card_cannot_decide_the_agents_own_approval(tmp_path: Path) -> None:
    """An approval is a person's to decide: the calling agent's card (its own token, so its own
    model too) finds no question to answer while only an approval is pending, and by the
    approval's id it is refused; the approval stays pending."""
    async with running(make_config(tmp_path)) as r, r.http() as http:
        mine = await open_session(http, AGENT_TOKEN, APPS)
        asking = asyncio.create_task(http.post("/mcp", headers=headers(AGENT_TOKEN, mine),
                                               content=call("request_approval", {
                                                   "action": "Drop the production database"}),
                                               timeout=60))
        [pending] = await until(lambda: r.bridge.store.pending_questions())
        assert pending.approval is not None
        approve = pending.request.questions[0].options[0].label
        for arguments in ({"answers": {"decision": [approve]}},
                          {"answers": {"decision": [approve]}, "question_id": pending.id}):
            refused = await rpc(http, AGENT_TOKEN, mine, "tools/call",
                                {"name": ANSWER_TOOL, "arguments": arguments}, 2)
            assert refused["result"]["isError"] is True, refused
        assert [q.id for q in await r.bridge.store.pending_questions()] == [pending.id]
        assert not asking.done()
        asking.cancel()
