"""The agents' HTTP API: auth, roles, conflicts, limits, polling, cancel, disconnect, timeline."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from structlog.testing import capture_logs

from tests.adapters.webhook.support import DEPLOY, post_reply
from tests.harness import AGENT_TOKEN, SUB_TOKEN, make_config, running, until

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}


async def test_missing_or_wrong_token_is_401(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        assert (await http.post("/v1/sessions/main/questions", json=DEPLOY)).status_code == 401
        wrong = await http.post("/v1/sessions/main/questions", json=DEPLOY,
                                headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        assert wrong.json()["error"] == "unauthorized"
        # The problem is in a header, and the answer says so (RFC 6750's challenge too).
        assert [d["loc"] for d in wrong.json()["details"]] == ["header"]
        assert wrong.headers["www-authenticate"] == "Bearer"
        for path in ("/v1/me", "/v1/questions/q_x", "/v1/sessions/main/timeline"):
            missing = await http.get(path)
            assert missing.status_code == 401 and missing.json()["details"][0]["loc"] == "header"


async def test_subagent_is_refused_with_403(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        response = await http.post("/v1/sessions/main/ask", json=DEPLOY,
                                   headers={"Authorization": f"Bearer {SUB_TOKEN}"})
        assert response.status_code == 403
        assert "main sessions" in response.json()["details"][0]["msg"]


async def test_second_pending_question_in_a_session_is_409(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        first = await http.post("/v1/sessions/main/questions", json=DEPLOY, headers=AUTH)
        assert first.status_code == 202
        second = await http.post("/v1/sessions/main/questions", json=DEPLOY, headers=AUTH)
        assert second.status_code == 409
        other = await http.post("/v1/sessions/other/questions", json=DEPLOY, headers=AUTH)
        assert other.status_code == 202


async def test_oversized_body_is_413(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        big = b'{"questions": "' + b"x" * (1024 * 1024) + b'"}'
        response = await http.post("/v1/sessions/main/ask", content=big,
                                   headers=AUTH | {"content-type": "application/json"})
        assert response.status_code == 413

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: streamed bytes count
            for _ in range(20):
                yield b"x" * 65536

        streamed = await http.post("/v1/sessions/main/ask", content=chunks(), headers=AUTH)
        assert streamed.status_code == 413


async def test_invalid_body_is_422_with_every_problem(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        bad = {"questions": [{"id": "X", "header": "", "question": "q",
                              "options": [{"label": "Other"}]}], "timeoutSeconds": 1.5}
        response = await http.post("/v1/sessions/main/ask", json=bad, headers=AUTH)
        assert response.status_code == 422
        body = response.json()
        assert body["error"] == "invalid_request"
        locs = {d["loc"] for d in body["details"]}
        assert {"questions[0].id", "questions[0].header", "questions[0].options",
                "questions[0].options[0].label", "timeoutSeconds"} <= locs
        garbage = await http.post("/v1/sessions/main/ask", content=b"{nope",
                                  headers=AUTH | {"content-type": "application/json"})
        assert garbage.status_code == 422
        assert garbage.json()["details"][0]["loc"] == "body"


async def test_non_blocking_ask_poll_and_cancel(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        created = (await http.post("/v1/sessions/main/questions", json=DEPLOY, headers=AUTH)).json()
        assert created["status"] == "pending" and created["expiresAt"].endswith("Z")
        qid = created["id"]
        waiting = await http.get(f"/v1/questions/{qid}/result", params={"wait": 0.2},
                                 headers=AUTH)
        assert waiting.status_code == 202 and waiting.json() == {"status": "pending"}
        record = (await http.get(f"/v1/questions/{qid}", headers=AUTH)).json()
        assert record["status"] == "pending" and record["surfaces"] == ["webhook:sms:+100"]
        cancelled = await http.post(f"/v1/questions/{qid}/cancel", headers=AUTH)
        assert cancelled.json() == {"status": "no_answer", "reason": "cancelled"}
        record = (await http.get(f"/v1/questions/{qid}", headers=AUTH)).json()
        assert record["status"] == "no_answer" and record["reason"] == "cancelled"
        assert record["resolvedAt"].endswith("Z")
        other = await http.get(f"/v1/questions/{qid}",
                               headers={"Authorization": f"Bearer {SUB_TOKEN}"})
        assert other.status_code == 404


async def test_answer_beats_a_later_cancel(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        qid = (await http.post("/v1/sessions/main/questions", json=DEPLOY, headers=AUTH)).json()["id"]
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        assert (await post_reply(http, "production")).json()["accepted"] is True
        cancelled = await http.post(f"/v1/questions/{qid}/cancel", headers=AUTH)
        assert cancelled.json()["status"] == "answered"
        record = (await http.get(f"/v1/questions/{qid}", headers=AUTH)).json()
        assert record["answeredBy"] == {"surface": "webhook:sms:+100", "user": "+100"}


async def test_duplicate_answers_have_one_winner(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        qid = (await http.post("/v1/sessions/main/questions", json=DEPLOY, headers=AUTH)).json()["id"]
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        replies = await asyncio.gather(*(post_reply(http, str(1 + i % 3)) for i in range(30)))
        accepted = [x for x in replies if x.json()["accepted"]]
        assert len(accepted) == 1
        result = (await http.get(f"/v1/questions/{qid}/result", headers=AUTH)).json()
        assert result["status"] == "answered"
        deliveries = await r.bridge.store.deliveries(qid)
        assert [d.finalized for d in deliveries] == [True]


async def test_blocking_ask_cancels_when_the_client_goes_away(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        qid = await _leave_a_blocking_ask(r)
        record = await until(lambda: _ended(r, qid))
        assert record.reason == "cancelled"


async def test_a_client_leaving_a_blocking_ask_is_one_log_line_not_a_traceback(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """`askbridge ask` interrupted, an MCP stdio call cancelled: the HTTP client goes away."""
    with capture_logs() as logs:
        async with running(make_config(tmp_path)) as r:
            qid = await _leave_a_blocking_ask(r)
            await until(lambda: _ended(r, qid))
            await until(lambda: [e for e in logs if e["event"] == "ask_abandoned"])
    abandoned = [e for e in logs if e["event"] == "ask_abandoned"]
    assert abandoned == [{"event": "ask_abandoned", "question_id": qid, "log_level": "info",
                          "reason": "client_disconnected", "status": "no_answer"}]
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR], caplog.text
    assert "CancelledError" not in caplog.text and "Traceback" not in caplog.text


async def _leave_a_blocking_ask(r: Any) -> str:
    """Ask and block, then go away once the question is pending: its id."""
    async with httpx.AsyncClient(base_url=r.url, trust_env=False) as http:
        call = asyncio.create_task(http.post("/v1/sessions/main/ask", json=DEPLOY,
                                             headers=AUTH, timeout=None))
        pending = await until(lambda: r.bridge.store.pending_questions())
        call.cancel()
    return str(pending[0].id)


async def _ended(r: object, qid: str) -> object:
    record = await r.bridge.store.get_question(qid)  # type: ignore[attr-defined]
    return record if record and not record.pending else None


async def test_timeline_lists_every_question_with_summary(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        for reply in ("2", "skip"):
            qid = (await http.post("/v1/sessions/s1/questions", json=DEPLOY,
                                   headers=AUTH)).json()["id"]
            await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
            await post_reply(http, reply)
            await until(lambda q=qid: _ended(r, q))
        line = (await http.get("/v1/sessions/s1/timeline", headers=AUTH)).json()["questions"]
        assert [q["summary"] for q in line] == ["Skipped", "Deploy: Production"]


async def test_query_parameters_are_checked_and_every_documented_operation_is_served(
        tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        qid = (await http.post("/v1/sessions/main/questions", json=DEPLOY,
                               headers=AUTH)).json()["id"]
        for path, name, value in ((f"/v1/questions/{qid}/result", "wait", "soon"),
                                  ("/v1/sessions/main/timeline", "limit", "2.5")):
            bad = await http.get(path, params={name: value}, headers=AUTH)
            assert bad.status_code == 422, path
            assert [d["loc"] for d in bad.json()["details"]] == [f"query.{name}"]
        pending = await http.get(f"/v1/questions/{qid}/result", params={"wait": "0.05"},
                                 headers=AUTH)
        assert pending.status_code == 202
        line = await http.get("/v1/sessions/main/timeline", params={"limit": "1"}, headers=AUTH)
        assert [q["id"] for q in line.json()["questions"]] == [qid]
        # The document comes from declarations the server does not serve itself: every
        # operation it lists must reach a route (refused for want of a token, not 404/405).
        spec = (await http.get("/openapi.json")).json()
        served = [(method, path) for path, operations in spec["paths"].items()
                  for method, operation in operations.items()
                  if operation.get("security") == [{"bearer": []}]]  # the agents' API
        assert len(served) == 7
        for method, path in served:
            concrete = path.replace("{session}", "main").replace("{question_id}", qid)
            assert (await http.request(method.upper(), concrete)).status_code == 401, path


async def test_openapi_and_health(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        assert (await http.get("/healthz")).json()["ok"] is True
        spec = (await http.get("/openapi.json")).json()
    schemas = spec["components"]["schemas"]
    assert spec["components"]["securitySchemes"]["bearer"] == {
        "type": "http", "scheme": "bearer", "description": ANY_TEXT}
    expected = {  # every status each route answers (405 everywhere: a wrong method)
        ("/v1/sessions/{session}/ask", "post"): {"200", "401", "403", "405", "409", "413", "422",
                                                 "503"},
        ("/v1/sessions/{session}/questions", "post"): {"202", "401", "403", "405", "409", "413",
                                                       "422"},
        ("/v1/questions/{question_id}", "get"): {"200", "401", "404", "405"},
        ("/v1/questions/{question_id}/result", "get"): {"200", "202", "401", "404", "405", "422"},
        ("/v1/questions/{question_id}/cancel", "post"): {"200", "401", "404", "405"},
        ("/v1/sessions/{session}/timeline", "get"): {"200", "401", "405", "422"},
        ("/v1/me", "get"): {"200", "401", "405"},
        ("/v1/channels/webhook/{name}", "post"): {"200", "401", "404", "405", "413", "422",
                                                  "503"},
    }
    for (path, method), statuses in expected.items():
        operation = spec["paths"][path][method]
        assert set(operation["responses"]) == statuses, (path, set(operation["responses"]))
        assert operation["security"] in ([{"bearer": []}], [{"signature": []}]), path
        for status, response in operation["responses"].items():
            schema = response["content"]["application/json"]["schema"]
            assert schema != {}, (path, status)
            if status.startswith("4"):
                assert schema == {"$ref": "#/components/schemas/Error"}, (path, status)
    assert set(schemas["Error"]["required"]) == {"error", "details"}
    assert [s["$ref"].rsplit("/", 1)[1] for s in schemas["AskResult"]["oneOf"]] == [
        "Answered", "NoAnswer"]
    assert "answeredBy" in schemas["QuestionRecord"]["properties"]
    # The contract's limits, where JSON Schema can say them.
    questions = schemas["AskRequest"]["properties"]["questions"]
    assert (questions["minItems"], questions["maxItems"]) == (1, 3)
    question = schemas["Question"]["properties"]
    assert question["id"]["maxLength"] == 64 and question["id"]["pattern"] == "^[a-z][a-z0-9_]*$"
    assert (question["options"]["minItems"], question["options"]["maxItems"]) == (2, 4)
    links = spec["paths"]["/v1/sessions/{session}/questions"]["post"]["responses"]["202"]["links"]
    assert {link["operationId"] for link in links.values()} >= {"get_question", "get_result",
                                                                "cancel_question"}


class _AnyText:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and bool(other)


ANY_TEXT = _AnyText()


def test_trimmed_text_patterns_match_what_the_contract_accepts() -> None:
    """The schema's patterns for trimmed text say exactly what the contract checks: a label of
    64 characters with spaces around passes, 65 does not, blank does not."""
    import re

    from bridge.http.openapi import request_schemas
    from bridge.model.contract import LABEL_MAX

    pattern = re.compile(request_schemas()["Option"]["properties"]["label"]["pattern"])
    assert pattern.search("  " + "a" * LABEL_MAX + "\n ")
    assert pattern.search("a b")
    assert not pattern.search("a" * (LABEL_MAX + 1))
    assert not pattern.search(" \t ")
    assert not pattern.search("")
