"""A token or signature header that is not ASCII is refused exactly like a wrong one, on the
agents' API, /mcp and the webhook channel (Telegram's and Slack's are tested with them)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from bridge import SIGNATURE_HEADER
from tests.harness import make_config, running
from tests.samples import DEPLOY

ODD = ["tökén".encode(), "Bearer tökén".encode(), "Bearer ключ".encode(), b"Bearer \xff\xfe",
       "sha256=é".encode()]
ROUTES = [("POST", "/v1/sessions/main/ask"), ("POST", "/v1/sessions/main/questions"),
          ("GET", "/v1/questions/q_1"), ("GET", "/v1/questions/q_1/result"),
          ("POST", "/v1/questions/q_1/cancel"), ("GET", "/v1/sessions/main/timeline"),
          ("GET", "/v1/me"), ("POST", "/mcp"), ("GET", "/mcp"), ("DELETE", "/mcp")]


async def refused(http: httpx.AsyncClient, method: str, path: str,
                  header: str, value: bytes) -> tuple[int, str]:
    response = await http.request(method, path, content=json.dumps(DEPLOY).encode(),
                                  headers={header.encode(): value,
                                           b"content-type": b"application/json",
                                           b"accept": b"application/json, text/event-stream"})
    return response.status_code, response.text


async def test_a_token_that_is_not_ascii_is_refused_like_a_wrong_one(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        for method, path in ROUTES:
            wrong = await refused(http, method, path, "authorization", b"Bearer wrong")
            assert wrong[0] == 401, (method, path, wrong)
            for value in ODD:
                assert await refused(http, method, path, "authorization", value) == wrong, (
                    method, path, value)


async def test_a_channel_signature_that_is_not_ascii_is_refused_like_a_wrong_one(
        tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        path = "/v1/channels/webhook/sms"
        wrong = await refused(http, "POST", path, SIGNATURE_HEADER, b"sha256=00")
        assert wrong[0] == 401
        for value in ODD:
            assert await refused(http, "POST", path, SIGNATURE_HEADER, value) == wrong, value
