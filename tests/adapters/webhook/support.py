"""Shared pieces of the webhook tests: the questions, a signed reply, a config for the gateway."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bridge import SIGNATURE_HEADER, sign
from tests.harness import WEBHOOK_SECRET, make_config


async def post_reply(http: Any, text: str, sender: str = "+100", **extra: Any) -> Any:
    """A person's reply from `sender` in the `+100` conversation, signed like the gateway signs."""
    body = json.dumps({"conversation": "+100", "sender": sender, "text": text, **extra}).encode()
    return await http.post("/v1/channels/webhook/sms", content=body,
                           headers={SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body),
                                    "content-type": "application/json"})


def gateway_config(tmp_path: Path, url: str, **channel: Any) -> Any:
    """A config whose `sms` channel posts prompts to the fake gateway at `url`."""
    return make_config(tmp_path,
                       webhooks={"sms": {"secret_env": "HOOK_SECRET", "url": url, **channel}})
