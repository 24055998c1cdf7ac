"""Security against the real server: signatures, replays, secrets, roles, the web UI, the logs."""

from __future__ import annotations

import hmac
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from adapters.webhook.freshness import TIMESTAMP_HEADER, TIMESTAMPED_HEADER, sign_timestamped
from bridge.runtime import security
from bridge.runtime.security import SIGNATURE_HEADER, sign
from tests.harness import AGENT_TOKEN, SUB_TOKEN, WEB_TOKEN, WEBHOOK_SECRET, until
from tests.reliability.figures import Figures
from tests.reliability.platforms import (
    CHAT,
    ENV,
    TG_SECRET,
    post_slack,
    post_telegram,
    slack_click,
    slack_stale,
    telegram_tap,
)
from tests.reliability.platforms import platforms as all_platforms
from tests.reliability.server import SECRETS
from tests.reliability.support import create, question, record, signed

FREE_TEXT = "my vault passphrase is tangerine-4471"
SURFACES = [f"telegram:{CHAT['id']}", "slack:C0123", "discord:3001", "webhook:sms:+100"]


async def test_signatures_replays_roles_web_ui_and_logs(tmp_path: Path, figures: Figures) -> None:
    refused: dict[str, int] = {}
    async with all_platforms(tmp_path, SURFACES, log_level="debug") as p, \
            p.server.http(ENV["MULTI_TOKEN"]) as http:
        q = await create(http, "sec")
        await until(lambda: _delivered_everywhere(http, q["id"]), timeout=30)
        refused["webhook"] = await _webhook_refusals(http, q["id"])
        refused["slack"] = await _slack_refusals(p, http, q["id"])
        refused["telegram"] = await _telegram_refusals(p, http, q["id"])
        assert (await record(http, q["id"]))["status"] == "pending"  # nothing got through

        # A timestamped, signed reply is taken once; the very same request again is a replay.
        body, headers = signed({"conversation": "+100", "sender": "+100", "text": FREE_TEXT,
                                "replyTo": q["id"]})
        stamp = str(int(time.time()))
        headers.update({TIMESTAMP_HEADER: stamp,
                        TIMESTAMPED_HEADER: sign_timestamped(WEBHOOK_SECRET, stamp, body)})
        first = await http.post("/v1/channels/webhook/sms", content=body, headers=headers)
        again = await http.post("/v1/channels/webhook/sms", content=body, headers=headers)
        assert first.status_code == 200 and first.json()["accepted"] is True
        assert again.status_code == 401 and again.json()["error"] == "stale_or_replayed"
        view = await until(lambda: _finalized(http, q["id"]), timeout=30)
        assert view["result"]["answers"]["answers"]["target"]["answers"] == [FREE_TEXT]

        roles = await _subagent_cannot_ask(p.server.url)
        web = await _web_ui(p.server.url)
        # Free text is never in a finalization, anywhere, nor in the logs.
        finals = (json.dumps(p.tg.calls_of("editMessageText")) + json.dumps(p.slack.called(
            "chat.update")) + json.dumps(p.discord.edits) + json.dumps(p.gw.statuses()))
        assert "Answered" in finals and FREE_TEXT not in finals
        logs = p.server.logs()
    assert FREE_TEXT not in logs
    secrets = {**SECRETS, **ENV, "TG_SECRET": TG_SECRET}
    leaked = [name for name, value in secrets.items() if value and value in logs]
    assert not leaked, leaked
    figures.add("security: signatures, replays, roles, web UI, logs",
                refused=refused, replay_refused=1, subagent=roles, web_ui=web,
                free_text_in_finalizations=0, free_text_in_logs=0,
                secrets_checked=len(secrets), secrets_in_debug_logs=0,
                log_lines=len(logs.splitlines()))


async def _delivered_everywhere(http: httpx.AsyncClient, qid: str) -> bool:
    view = await record(http, qid)
    return all(d["state"] == "delivered" for d in view["deliveries"])


async def _finalized(http: httpx.AsyncClient, qid: str) -> dict[str, Any] | None:
    view = await record(http, qid)
    done = view["status"] != "pending" and all(d["finalized"] for d in view["deliveries"])
    return view if done else None


async def _webhook_refusals(http: httpx.AsyncClient, qid: str) -> int:
    path = "/v1/channels/webhook/sms"
    body, good = signed({"conversation": "+100", "sender": "+100", "text": "2", "replyTo": qid})
    stamp = str(int(time.time()) - 3600)
    cases = [
        {"content-type": "application/json"},                                        # unsigned
        {**good, SIGNATURE_HEADER: sign("wrong-secret", body)},                      # wrong key
        {**good, SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body + b" ")},                # other body
        {**good, SIGNATURE_HEADER: "sha256="},                                       # empty
        {**good, TIMESTAMP_HEADER: stamp,                                            # stale
         TIMESTAMPED_HEADER: sign_timestamped(WEBHOOK_SECRET, stamp, body)},
        {**good, TIMESTAMP_HEADER: str(int(time.time())),                            # bad v2
         TIMESTAMPED_HEADER: sign_timestamped("wrong-secret", "1", body)},
    ]
    for headers in cases:
        r = await http.post(path, content=body, headers=headers)
        assert r.status_code == 401, (headers, r.text)
    return len(cases)


async def _slack_refusals(p: Any, http: httpx.AsyncClient, qid: str) -> int:
    message = next(m for m in p.slack.posted() if qid in json.dumps(m["blocks"]))
    raw = slack_click(message, "Production")
    unsigned = await http.post("/slack/events", content=raw.encode(),
                               headers={"content-type": "application/x-www-form-urlencoded"})
    wrong = await post_slack(http, raw, secret="not-the-signing-secret")
    stale = await http.post("/slack/events", content=raw.encode(), headers={
        "content-type": "application/x-www-form-urlencoded", **slack_stale(raw)})
    codes = [unsigned.status_code, wrong.status_code, stale.status_code]
    assert codes == [401, 401, 401], codes
    return len(codes)


async def _telegram_refusals(p: Any, http: httpx.AsyncClient, qid: str) -> int:
    message = next(m for m in p.tg.messages.values() if m.get("reply_markup")
                   and qid in json.dumps(m["reply_markup"]))
    body = telegram_tap(p.tg, message, "Production", 4242)
    codes = [(await post_telegram(http, body, secret)).status_code
             for secret in (None, "wrong", TG_SECRET[:-1], "")]
    assert codes == [403, 403, 403, 403], codes
    return len(codes)


async def _subagent_cannot_ask(url: str) -> str:
    headers = {"Authorization": f"Bearer {SUB_TOKEN}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, trust_env=False) as http:
        for path in ("/v1/sessions/s/ask", "/v1/sessions/s/questions"):
            r = await http.post(path, json=question())
            assert r.status_code == 403 and "subagent" in r.text, r.text
    for mode in ("legacy", "2026-07-28"):  # both revisions /mcp speaks
        client = httpx2.AsyncClient(headers={**headers, "X-Askbridge-Session": "m"},
                                    timeout=httpx2.Timeout(30, read=60))
        async with client, Client(streamable_http_client(f"{url}/mcp/", http_client=client),
                                  mode=mode) as session:
            assert (await session.list_tools()).tools == []
            assert (await session.call_tool("ask_user", question())).is_error
    params = StdioServerParameters(command=sys.executable, args=["-m", "bridge", "mcp"], env={
        "ASKBRIDGE_URL": url, "ASKBRIDGE_TOKEN": SUB_TOKEN, "PATH": "/usr/bin:/bin"})
    async with Client(params) as session:
        assert (await session.list_tools()).tools == []
        assert (await session.call_tool("ask_user", question())).is_error
    return "403 on /ask and /questions; no MCP tool (HTTP both revisions, stdio); calls refused"


async def _web_ui(url: str) -> str:
    async with httpx.AsyncClient(base_url=url, trust_env=False) as http:
        assert (await http.get("/ui/api/state")).status_code == 401
        assert (await http.get("/", params={"token": "wrong"})).status_code == 401
        for token in (AGENT_TOKEN, SUB_TOKEN):  # agent tokens are not web tokens
            assert (await http.get("/", params={"token": token})).status_code == 401
        assert (await http.get("/", params={"token": WEB_TOKEN})).status_code == 303
        csrf = http.cookies["askbridge_csrf"]
        path = "/ui/api/questions/q_aaaaaaaaaaaaaaaa/answer"
        for headers in ({"origin": "http://evil.example", "x-askbridge-csrf": csrf},
                        {"origin": url, "x-askbridge-csrf": csrf, "sec-fetch-site": "cross-site"},
                        {"x-askbridge-csrf": csrf}, {"origin": url}):
            r = await http.post(path, json={"answers": None}, headers=headers)
            assert r.status_code == 403, (headers, r.status_code)
    return "401 without token; cross-origin and CSRF-less writes 403"


def test_tokens_and_signatures_are_compared_in_constant_time(monkeypatch: Any,
                                                             figures: Figures) -> None:
    """Every candidate is compared with hmac.compare_digest, whether or not one matches."""
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def counting(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)
    monkeypatch.setattr(hmac, "compare_digest", counting)  # the module security.py calls
    tokens = [(f"agent{i}", f"token-{i}-0123456789") for i in range(5)]
    for given in ("token-2-0123456789", "token-2", "", None, "x" * 500, "token-4-0123456789"):
        calls.clear()
        security.match_token(given, tokens)
        assert len(calls) == len(tokens), given
    calls.clear()
    assert security.verify_signature("k", b"body", sign("k", b"body"))
    assert not security.verify_signature("k", b"body", "sha256=00")
    assert len(calls) == 2
    root = Path(__file__).resolve().parents[2]
    sources = {name: (root / "bridge" / f"{name}.py").read_text() for name in ("http/api", "mcp/http")}
    assert all("match_token(" in text for text in sources.values())
    figures.add("security: constant-time comparisons", token_candidates=len(tokens),
                compare_digest_per_lookup=len(tokens), early_exit=0,
                interfaces_using_match_token=sorted(sources))
