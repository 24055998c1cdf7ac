"""Shared pieces of the webhook approval tests: a bridge whose `sms` channel posts to the fake
gateway, people on it, a signed reply, and a blocking approve call once its prompts are out."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from bridge import SIGNATURE_HEADER, sign
from tests.fakes.gateway import Gateway, gateway
from tests.harness import AGENT_TOKEN, WEBHOOK_SECRET, Running, make_config, running, until

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}
DEPLOY: dict[str, Any] = {"action": "Deploy web to production", "tool": "deploy", "risk": "high",
          "arguments": {"service": "web", "env": "production", "replicas": 3}}
PEOPLE = [{"name": "ana", "webhook": ["sms:+100", "sms:+102"]}, {"name": "budi", "webhook": ["sms:+101"]},
          {"name": "cita", "webhook": ["sms:+103"]}]


@asynccontextmanager
async def bridge(tmp_path: Path, answerers: tuple[str, ...] = (), **sections: Any,
                 ) -> AsyncIterator[tuple[Running, Gateway, httpx.AsyncClient]]:
    async with gateway(WEBHOOK_SECRET) as gw:
        channel = {"secret_env": "HOOK_SECRET", "url": gw.url, "answerers": list(answerers)}
        config = make_config(tmp_path, surfaces=("webhook:sms:+100", "webhook:sms:+102"),
                             webhooks={"sms": channel}, **sections)
        async with running(config) as r, r.http() as http:
            yield r, gw, http


def approvals(gw: Gateway) -> list[dict[str, Any]]:
    return [p for p in gw.received if p["kind"] == "approval"]


def statuses(gw: Gateway) -> list[str]:
    return [p["text"] for p in gw.received if p["kind"] == "status"]


async def reply(http: httpx.AsyncClient, text: str, sender: str = "+100",
                conversation: str = "+100") -> dict[str, Any]:
    body = json.dumps({"conversation": conversation, "sender": sender, "text": text}).encode()
    response = await http.post("/v1/channels/webhook/sms", content=body, headers={
        SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body), "content-type": "application/json"})
    assert response.status_code == 200, response.text
    return dict(response.json())


async def asked(http: httpx.AsyncClient, gw: Gateway, body: dict[str, Any] = DEPLOY,
                session: str = "main") -> asyncio.Task[httpx.Response]:
    """A blocking approve call, once its prompt reached both conversations."""
    before = len(approvals(gw))
    call = asyncio.create_task(http.post(f"/v1/sessions/{session}/approve", json=body,
                                         headers=AUTH))
    await until(lambda: len(approvals(gw)) >= before + 2 or call.done())
    return call
