"""Shared by the reach tests: a config with reminders/tiers, signed replies, what the gateway got."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bridge import SIGNATURE_HEADER, sign
from bridge.runtime.config import parse_config
from tests.fakes.gateway import Gateway
from tests.harness import WEBHOOK_SECRET, make_config


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
