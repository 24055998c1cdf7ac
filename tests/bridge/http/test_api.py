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

from tests.adapters.webhook.support import post_reply
from tests.harness import AGENT_TOKEN, SUB_TOKEN, make_config, running, until
from tests.samples import DEPLOY

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
