"""Slack in HTTP mode: events and interactivity at POST /slack/events, signed and fresh only."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from tests.adapters.slack.support import answered, slack_config, slack_env, status_of
from tests.fakes.slack import click_body, fake_slack, message_body, signed_headers
from tests.harness import running, until
from tests.samples import DEPLOY


async def post_form(http: httpx.AsyncClient, body: dict[str, Any],
                    **sign: Any) -> httpx.Response:
    raw = "payload=" + quote(json.dumps(body))
    headers = {"content-type": "application/x-www-form-urlencoded", **signed_headers(raw, **sign)}
    return await http.post("/slack/events", content=raw.encode(), headers=headers)


async def post_json(http: httpx.AsyncClient, body: dict[str, Any]) -> httpx.Response:
    raw = json.dumps(body)
    headers = {"content-type": "application/json", **signed_headers(raw)}
    return await http.post("/slack/events", content=raw.encode(), headers=headers)


async def test_signed_click_answers(tmp_path: Path) -> None:
    async with fake_slack() as fake, running(
            slack_config(tmp_path, fake, mode="http"), slack_env()) as r, \
            r.client() as client, r.http() as http:
        assert fake.sockets == [] and fake.called("apps.connections.open") == []
        ask = asyncio.create_task(client.ask(DEPLOY))
        message = await fake.wait_posted()
        response = await post_form(http, click_body(message, "Canary"))
        assert response.status_code == 200
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered(deploy_target=["Canary"])
        await until(lambda: status_of(message))
        assert status_of(message) == "Answered: Canary"


async def test_signed_thread_reply_event_answers(tmp_path: Path) -> None:
    async with fake_slack() as fake, running(
            slack_config(tmp_path, fake, mode="http"), slack_env()) as r, \
            r.client() as client, r.http() as http:
        ask = asyncio.create_task(client.ask(DEPLOY))
        message = await fake.wait_posted()
        response = await post_json(http, message_body("C0123", "production",
                                                      thread_ts=message["ts"]))
        assert response.status_code == 200
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered(deploy_target=["Production"])


async def test_url_verification_is_answered(tmp_path: Path) -> None:
    async with fake_slack() as fake, running(
            slack_config(tmp_path, fake, mode="http"), slack_env()) as r, r.http() as http:
        response = await post_json(http, {"type": "url_verification", "token": "t",
                                          "challenge": "c-123"})
        assert response.status_code == 200
        assert response.json() == {"challenge": "c-123"}


async def test_bad_signature_and_stale_timestamp_are_refused(tmp_path: Path) -> None:
    async with fake_slack() as fake, running(
            slack_config(tmp_path, fake, mode="http"), slack_env()) as r, \
            r.client() as client, r.http() as http:
        created = await client.create(DEPLOY)
        message = await fake.wait_posted()
        click = click_body(message, "Production")
        forged = await post_form(http, click, secret="not-the-signing-secret")
        assert forged.status_code == 401
        stale = await post_form(http, click, timestamp=int(time.time()) - 6 * 60)
        assert stale.status_code == 401
        unsigned = await http.post("/slack/events", content=b"payload=%7B%7D",
                                   headers={"content-type": "application/x-www-form-urlencoded"})
        assert unsigned.status_code == 401
        assert (await client.question(created["id"]))["status"] == "pending"
        assert status_of(message) is None
        fresh = await post_form(http, click)
        assert fresh.status_code == 200
        result = await client.result(created["id"], wait=10)
        assert result is not None and result.to_json() == answered(deploy_target=["Production"])


async def test_a_signature_that_is_not_ascii_is_refused_like_a_wrong_one(
        tmp_path: Path) -> None:
    async with fake_slack() as fake, running(
            slack_config(tmp_path, fake, mode="http"), slack_env()) as r, r.http() as http:
        raw = json.dumps(message_body("C0123", "production"))
        good = signed_headers(raw)

        async def post(signature: bytes) -> httpx.Response:
            headers = {b"content-type": b"application/json",
                       b"x-slack-request-timestamp": good["X-Slack-Request-Timestamp"].encode(),
                       b"x-slack-signature": signature}
            return await http.post("/slack/events", content=raw.encode(), headers=headers)

        wrong = await post(b"v0=" + b"0" * 64)
        assert wrong.status_code == 401
        for odd in ("v0=é".encode(), b"v0=" + "ключ".encode(), b"v0=\xff"):
            refused = await post(odd)
            assert (refused.status_code, refused.text) == (wrong.status_code, wrong.text)
