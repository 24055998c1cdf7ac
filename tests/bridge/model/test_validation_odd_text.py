"""A NUL or a lone surrogate in any string field is a 422 naming the field, on both stores;
a NUL in an id is a 404; nothing of it is stored."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from bridge import SIGNATURE_HEADER, sign
from tests.adapters.web.support import login, same_origin
from tests.adapters.webhook.support import post_reply
from tests.bridge.mcp_wire import call, headers, messages, open_session
from tests.harness import AGENT_TOKEN, WEBHOOK_SECRET, Running, make_config, running
from tests.pg import scratch_database, server_url
from tests.samples import DEPLOY

STORES = ["sqlite", pytest.param("postgres", marks=pytest.mark.skipif(
    server_url() is None, reason="ASKBRIDGE_TEST_POSTGRES_URL=off"))]
SURROGATE = "\ud83d"
NUL = "\x00"


@asynccontextmanager
async def bridge_on(store: str, tmp_path: Path) -> AsyncIterator[Running]:
    surfaces = ["web", "webhook:sms:+100"]
    if store == "sqlite":
        async with running(make_config(tmp_path, surfaces=surfaces)) as r:
            yield r
        return
    async with scratch_database() as url:
        async with running(make_config(tmp_path, surfaces=surfaces, store={"url": url})) as r:
            yield r


def with_text(where: str, text: str) -> dict[str, Any]:
    """DEPLOY with `text` put into one of its string fields."""
    question = json.loads(json.dumps(DEPLOY["questions"][0]))
    if where == "label":
        question["options"][1]["label"] = f"Prod{text}uction"
    elif where == "description":
        question["options"][0]["description"] = f"Safe{text}"
    else:
        question[where] = f"{question[where]}{text}"
    return {"questions": [question]}


LOCS = {"header": "questions[0].header", "question": "questions[0].question",
        "label": "questions[0].options[1].label",
        "description": "questions[0].options[0].description"}


def raw(body: dict[str, Any]) -> bytes:
    """JSON as a client sends it: a lone surrogate or a NUL written as a \\u escape."""
    return json.dumps(body).encode()


def agent(r: Running) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=r.url, trust_env=False, timeout=30, headers={
        "Authorization": f"Bearer {AGENT_TOKEN}", "content-type": "application/json"})


@pytest.mark.parametrize("store", STORES)
async def test_a_faulty_string_in_an_ask_is_a_422_naming_the_field(store: str,
                                                                  tmp_path: Path) -> None:
    async with bridge_on(store, tmp_path) as r, agent(r) as http:
        for text in (SURROGATE, NUL):
            for where, loc in LOCS.items():
                for route in ("questions", "ask"):
                    response = await http.post(f"/v1/sessions/s/{route}",
                                               content=raw(with_text(where, text)))
                    assert response.status_code == 422, (where, route, response.text)
                    body = response.json()
                    assert body["error"] == "invalid_request"
                    assert loc in [d["loc"] for d in body["details"]], body
        assert not await r.bridge.store.pending_on_surface("webhook:sms:+100")  # type: ignore[arg-type]


@pytest.mark.parametrize("store", STORES)
async def test_a_nul_in_a_reply_or_conversation_is_refused_and_the_question_stays(
        store: str, tmp_path: Path) -> None:
    async with bridge_on(store, tmp_path) as r, agent(r) as http:
        created = (await http.post("/v1/sessions/s/questions", content=raw(DEPLOY))).json()
        for text in (f"Prod{NUL}uction", f"x{SURROGATE}"):
            refused = await post_reply(http, text)
            assert refused.status_code == 422, refused.text
            assert [d["loc"] for d in refused.json()["details"]] == ["text"]
        body = json.dumps({"conversation": f"+1{NUL}00", "sender": "+100",
                           "text": "2"}).encode()
        refused = await http.post("/v1/channels/webhook/sms", content=body,
                                  headers={SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body)})
        assert refused.status_code == 422, refused.text
        assert [d["loc"] for d in refused.json()["details"]] == ["conversation"]
        record = (await http.get(f"/v1/questions/{created['id']}")).json()
        assert record["status"] == "pending"
        assert (await post_reply(http, "2")).json()["accepted"] is True  # still answerable
        record = (await http.get(f"/v1/questions/{created['id']}")).json()
        assert record["result"]["answers"]["answers"]["deploy_target"]["answers"] == [
            "Production"]


@pytest.mark.parametrize("store", STORES)
async def test_a_nul_in_a_web_answer_is_refused_by_name(store: str, tmp_path: Path) -> None:
    async with bridge_on(store, tmp_path) as r, agent(r) as api, r.http() as web:
        created = (await api.post("/v1/sessions/s/questions", content=raw(DEPLOY))).json()
        csrf = await login(r, web)
        body = json.dumps({"answers": {"deploy_target": [f"Prod{NUL}uction"]}}).encode()
        refused = await web.post(f"/ui/api/questions/{created['id']}/answer", content=body,
                                 headers={**same_origin(r, csrf),
                                          "content-type": "application/json"})
        assert refused.status_code == 422, refused.text
        assert [d["loc"] for d in refused.json()["details"]] == ["answers.deploy_target[0]"]
        assert (await api.get(f"/v1/questions/{created['id']}")).json()["status"] == "pending"
        odd = await web.get(f"/ui/api/questions/q_%00{created['id'][2:]}")
        assert odd.status_code == 404, odd.text
        timeline = await web.get("/ui/api/timeline", params={"session": f"s{NUL}"})
        assert timeline.status_code == 422, timeline.text
        assert timeline.json()["details"][0]["loc"] == "query.session"


@pytest.mark.parametrize("store", STORES)
async def test_a_nul_in_an_id_is_a_404(store: str, tmp_path: Path) -> None:
    async with bridge_on(store, tmp_path) as r, agent(r) as http:
        for path in ("/v1/questions/q_%00abc", "/v1/questions/q_%00abc/result"):
            response = await http.get(path)
            assert response.status_code == 404, (path, response.text)
            assert response.json()["error"] == "not_found"
        session = await http.get("/v1/sessions/s%00/timeline")
        assert session.status_code == 422 and session.json()["details"][0]["loc"] == "session"
        cancel = await http.post("/v1/questions/%00/cancel")
        assert cancel.status_code == 404, cancel.text


async def test_mcp_names_the_faulty_argument_and_hides_internals(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        session_id = await open_session(http, AGENT_TOKEN)
        for text in (SURROGATE, NUL):
            response = await http.post("/mcp", headers=headers(AGENT_TOKEN, session_id),
                                       content=call("ask_user", with_text("header", text)))
            assert response.status_code == 200, response.text
            result = messages(response)[-1]["result"]
            assert result["isError"] is True
            message = result["content"][0]["text"]
            assert "questions[0].header" in message, message
            assert "Error" not in message and "pydantic" not in message.lower(), message
        assert not await r.bridge.store.pending_on_surface("webhook:sms:+100")  # type: ignore[arg-type]
