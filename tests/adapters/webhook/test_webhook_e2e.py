"""The webhook text channel end to end: prompt out (signed), reply in (signed), result back."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from bridge import SIGNATURE_HEADER, sign
from tests.harness import WEBHOOK_SECRET, make_config, running, until

DEPLOY = {
    "questions": [{
        "id": "deploy_target", "header": "Deploy", "question": "Where should I deploy?",
        "options": [{"label": "Staging (Recommended)"}, {"label": "Production"},
                    {"label": "Canary"}],
    }],
}


async def post_reply(http: Any, text: str, sender: str = "+100", **extra: Any) -> Any:
    body = json.dumps({"conversation": "+100", "sender": sender, "text": text, **extra}).encode()
    return await http.post("/v1/channels/webhook/sms", content=body,
                           headers={SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body),
                                    "content-type": "application/json"})


async def test_reply_by_number_answers_the_agent(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as client, r.http() as http:
        ask = asyncio.create_task(client.ask(DEPLOY))
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        response = await post_reply(http, "2")
        assert response.status_code == 200
        assert response.json()["accepted"] is True
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == {
            "status": "answered",
            "answers": {"answers": {"deploy_target": {"answers": ["Production"]}}},
        }
