"""Shared by the core tests: a broker and a receiver composed as the composition root composes
them (real store, webhook adapter); a config with reminders and tiers, signed replies."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters.webhook import plugin as webhook
from bridge import SIGNATURE_HEADER, AskRequest, QuestionId, SurfaceId, UserRef, parse_ask_request, sign
from bridge.core.broker import Broker
from bridge.core.receiver import Receiver
from bridge.runtime.config import parse_config
from bridge.server.composition import compose, make_adapters, make_store
from bridge.store.records import now_ms
from tests.fakes.gateway import Gateway
from tests.harness import WEBHOOK_SECRET, make_config

SMS = SurfaceId("webhook:sms:+100")
PAGER = SurfaceId("webhook:sms:+200")
PERSON = UserRef("+100")
ENV = {"AGENT_TOKEN": "test-agent-token-0123456789", "SUB_TOKEN": "test-subagent-token-0123456789",
       "PAGED_TOKEN": "test-paged-token-0123456789", "HOOK_SECRET": WEBHOOK_SECRET}


def request(raw: dict[str, Any]) -> AskRequest:
    return parse_ask_request(raw)


@dataclass
class Core:
    """The broker, the inbox the adapters call, and the fake gateway the `sms` channel posts to."""

    broker: Broker
    inbox: Receiver
    gateway: Gateway
    db: Path

    async def delivered(self, question_id: QuestionId) -> bool:
        """The broker recorded the delivery on `SMS` (the gateway has it a moment earlier)."""
        deliveries = await self.broker.store.deliveries(question_id)
        return any(d.surface == SMS and d.state == "delivered" for d in deliveries)

    def overdue(self, question_id: QuestionId) -> None:
        """Move the deadline into the past, as if it passed while the bridge was down."""
        with sqlite3.connect(self.db) as db:
            db.execute("UPDATE questions SET expires_at = ? WHERE id = ?",
                       (now_ms() - 1000, question_id))


@asynccontextmanager
async def started(tmp: Path, gateway: Gateway) -> AsyncIterator[Core]:
    """Build and start the core on `tmp` (the same `tmp` again is a restart); stop it after."""
    config = parse_config({
        "data_dir": str(tmp),
        "store": {"path": str(tmp / "askbridge.db")},
        "agents": [
            {"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main", "surfaces": [SMS]},
            {"name": "helper", "token_env": "SUB_TOKEN", "role": "subagent", "surfaces": [SMS]},
            {"name": "paged", "token_env": "PAGED_TOKEN", "role": "main", "surfaces": [SMS, PAGER]},
        ],
        "webhooks": {"sms": {"secret_env": "HOOK_SECRET", "url": gateway.url}},
    })
    store = make_store(config)
    adapters = make_adapters(config, ENV, [webhook], store)
    core = compose(store, adapters, config.agents)
    broker, inbox = core.broker, core.receiver
    await store.open()
    try:
        for adapter in adapters.values():
            await adapter.start(inbox, core.reads)
        await broker.start()
    except BaseException:
        await store.close()  # its worker thread would keep the test process alive
        raise
    try:
        yield Core(broker, inbox, gateway, Path(config.store_path))
    finally:
        await broker.stop()  # before the adapters: in-flight prompts and edits still go out
        for adapter in adapters.values():
            await adapter.stop()
        await store.close()


def reach_config(tmp: Path, url: str, **agent: Any) -> Any:
    config = make_config(tmp, webhooks={"sms": {"secret_env": "HOOK_SECRET", "url": url}})
    raw = config.model_dump()
    raw["agents"][0].update(agent)
    for key in ("server", "web"):
        raw.pop(key, None)
    return parse_config(raw)


async def reply(http: Any, conversation: str, text: str, **extra: Any) -> Any:
    body = json.dumps({"conversation": conversation, "sender": conversation, "text": text,
                       **extra}).encode()
    response = await http.post("/v1/channels/webhook/sms", content=body, headers={
        SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body), "content-type": "application/json"})
    return response.json()


def sent(gw: Gateway, kind: str, conversation: str) -> list[dict[str, Any]]:
    return [p for p in gw.received if p["kind"] == kind and p["conversation"] == conversation]
