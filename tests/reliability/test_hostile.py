"""Hostile bodies on every JSON entry point of the real server: 100,000-deep nesting, 5,000-digit
integers, wrong methods. Each gets a 4xx in the usual shape (or the contract's clamp), never a
500, never a traceback."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx

from bridge.runtime.security import SIGNATURE_HEADER, sign
from tests.fakes.slack import signed_headers
from tests.harness import WEB_TOKEN, WEBHOOK_SECRET, until
from tests.reliability.figures import Figures
from tests.reliability.platforms import TG_SECRET, platforms
from tests.reliability.support import create, question

DEEP = b'{"questions": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
HUGE = "1" + "0" * 5000
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


def with_huge(body: str, key: str) -> bytes:
    """`body` (JSON with a `"<key>"` placeholder string) with a 5,001-digit integer in it."""
    return body.replace(f'"{key}"', HUGE).encode()


def _is_error_shape(r: httpx.Response) -> bool:
    body = r.json()
    return isinstance(body.get("error"), str) and all(
        isinstance(d["loc"], str) and len(d["msg"]) > 8 for d in body["details"])


async def _entry_points(http: httpx.AsyncClient, url: str, qid: str
                        ) -> dict[str, tuple[str, dict[str, str], bytes]]:
    """Each JSON entry point: its path, the credentials that let it read the body, and a body
    carrying a huge integer where the entry point reads a number or a string."""
    web = httpx.AsyncClient(base_url=url, trust_env=False)
    await web.get("/", params={"token": WEB_TOKEN})
    web_headers = {"origin": url, "x-askbridge-csrf": web.cookies["askbridge_csrf"],
                   "cookie": "; ".join(f"{k}={v}" for k, v in web.cookies.items())}
    await web.aclose()
    reply = with_huge('{"conversation": "+100", "sender": "+100", "text": "T"}', "T")
    slack = with_huge('{"type": "event_callback", "event_id": "E"}', "E")
    return {
        "api_questions": ("/v1/sessions/hostile/questions", {}, b""),
        "api_ask": ("/v1/sessions/hostile/ask", {}, b""),
        "webhook_channel": ("/v1/channels/webhook/sms", {}, reply),
        "web_ui_answer": (f"/ui/api/questions/{qid}/answer", web_headers,
                          with_huge('{"answers": {"target": ["A"]}}', "A")),
        "slack_events": ("/slack/events", {}, slack),
        "telegram_webhook": ("/telegram/webhook", {"X-Telegram-Bot-Api-Secret-Token": TG_SECRET},
                             with_huge('{"update_id": 1, "message": {"message_id": "M"}}', "M")),
        "mcp": ("/mcp", MCP_HEADERS, with_huge(
            '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": '
            '"2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "V"}}}',
            "V")),
    }


def _headers_for(name: str, base: dict[str, str], body: bytes) -> dict[str, str]:
    """Sign bodies where the entry point checks a signature before it parses."""
    headers = {"content-type": "application/json", **base}
    if name == "webhook_channel":
        headers.update(signed_raw(body))
    if name == "slack_events":
        headers.update(signed_headers(body.decode()))
    return headers


def signed_raw(body: bytes) -> dict[str, str]:
    return {SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body)}


async def test_deep_nesting_and_huge_integers_on_every_json_entry_point(
        tmp_path: Path, figures: Figures) -> None:
    async with platforms(tmp_path, ["web"]) as p, p.server.http() as http:
        qid = (await create(http, "web-target", None))["id"]
        points = await _entry_points(http, p.server.url, qid)
        seen: dict[str, tuple[int, int]] = {}
        slowest = 0.0
        for name, (path, base, huge) in points.items():
            started = time.monotonic()
            deep = await http.post(path, content=DEEP, headers=_headers_for(name, base, DEEP))
            slowest = max(slowest, time.monotonic() - started)
            assert 400 <= deep.status_code < 500, (name, deep.status_code, deep.text[:300])
            if name == "mcp":  # MCP clients read JSON-RPC errors
                assert deep.json()["error"]["code"] == -32700, deep.text
            else:
                assert _is_error_shape(deep), (name, deep.text[:300])
            if huge:
                big = await http.post(path, content=huge, headers=_headers_for(name, base, huge))
                assert big.status_code < 500, (name, big.status_code, big.text[:300])
                seen[name] = (deep.status_code, big.status_code)
            else:
                seen[name] = (deep.status_code, 0)
        await _huge_timeouts_clamp(http)
        logs = p.server.logs()
    assert "Traceback" not in logs and "RecursionError" not in logs, logs[-3000:]
    assert seen["webhook_channel"][1] == 422 and seen["web_ui_answer"][1] == 422, seen
    assert seen["slack_events"][1] == 400, seen
    figures.add("input: deep nesting and huge integers", entry_points=len(points),
                statuses=seen, server_errors=0,
                slowest_deep_refusal_s=round(slowest, 3))


async def _huge_timeouts_clamp(http: httpx.AsyncClient) -> None:
    """`timeoutSeconds` of 5,001 digits clamps to 3600, of minus 5,001 digits to 30 (the
    contract's range), on the agents' API."""
    for minus, seconds in (("", 3600), ("-", 30)):
        raw = json.dumps(question()).replace('"timeoutSeconds": 900',
                                             f'"timeoutSeconds": {minus}{HUGE}')
        r = await http.post(f"/v1/sessions/clamp{seconds}/questions", content=raw.encode(),
                            headers={"content-type": "application/json"})
        assert r.status_code == 202, r.text[:300]
        record = (await http.get(f"/v1/questions/{r.json()['id']}")).json()
        assert _seconds_between(record["createdAt"], record["expiresAt"]) == seconds, record


def _seconds_between(start: str, end: str) -> int:
    from datetime import datetime

    def parse(s: str) -> datetime:
        return datetime.fromisoformat(s.replace("Z", "+00:00"))

    return round((parse(end) - parse(start)).total_seconds())


async def test_wrong_methods_are_405_with_allow_everywhere(tmp_path: Path) -> None:
    async with platforms(tmp_path, ["web"]) as p, p.server.http() as http:
        wrong: list[tuple[str, str, str]] = [
            ("GET", "/v1/sessions/s/ask", "POST"), ("PUT", "/v1/sessions/s/questions", "POST"),
            ("DELETE", "/v1/questions/q_x", "GET"), ("POST", "/v1/questions/q_x/result", "GET"),
            ("GET", "/v1/questions/q_x/cancel", "POST"), ("POST", "/v1/me", "GET"),
            ("PATCH", "/v1/sessions/s/timeline", "GET"), ("GET", "/v1/channels/webhook/sms", "POST"),
            ("GET", "/slack/events", "POST"), ("GET", "/telegram/webhook", "POST"),
            ("GET", "/ui/api/questions/q_x/answer", "POST"), ("POST", "/ui/api/state", "GET"),
            ("PUT", "/mcp", "POST")]
        for method, path, allowed in wrong:
            r = await http.request(method, path)
            assert r.status_code == 405, (method, path, r.status_code)
            assert allowed in [m.strip() for m in r.headers["allow"].split(",")], (path, r.headers)
            if not path.startswith("/mcp"):
                assert r.json()["error"] == "method_not_allowed", r.text
                assert allowed in r.json()["details"][0]["msg"], r.text


async def test_huge_timeout_over_mcp_http_clamps_like_the_api(tmp_path: Path) -> None:
    """The MCP SDK parses bodies itself; askbridge reads them first, so a 5,001-digit
    `timeoutSeconds` in a `tools/call` reaches the tool clamped to 3600, not as a crash."""
    async with platforms(tmp_path, ["web"]) as p, p.server.http() as http:
        init = await http.post("/mcp", headers=MCP_HEADERS, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "hostile", "version": "1"}}})
        assert init.status_code == 200, init.text
        session = {**MCP_HEADERS, "mcp-session-id": init.headers["mcp-session-id"],
                   "content-type": "application/json"}
        await http.post("/mcp", headers=session, json={
            "jsonrpc": "2.0", "method": "notifications/initialized"})
        call = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ask_user", "arguments": question()}}).replace(
            '"timeoutSeconds": 900', f'"timeoutSeconds": {HUGE}')
        waiting = asyncio.create_task(http.post("/mcp", headers=session, content=call.encode()))
        pending = await until(lambda: _pending_in(http, "main"))
        assert _seconds_between(pending["createdAt"], pending["expiresAt"]) == 3600, pending
        await http.post(f"/v1/questions/{pending['id']}/cancel")
        answered = await waiting
        assert answered.status_code == 200 and '"cancelled"' in answered.text, answered.text
        assert "Traceback" not in p.server.logs()


async def _pending_in(http: httpx.AsyncClient, session: str) -> dict[str, Any] | None:
    line = (await http.get(f"/v1/sessions/{session}/timeline")).json()["questions"]
    return next((q for q in line if q["status"] == "pending"), None)
