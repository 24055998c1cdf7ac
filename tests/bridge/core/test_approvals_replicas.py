"""Three bridges on one PostgreSQL database decide a 2-of-3 approval exactly once, whichever
replicas its votes arrive on at the same moment."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from bridge import SIGNATURE_HEADER, sign
from tests.fakes.gateway import gateway
from tests.harness import AGENT_TOKEN, WEBHOOK_SECRET, make_config, running, until
from tests.pg import scratch_database, server_url

pytestmark = pytest.mark.skipif(server_url() is None, reason="ASKBRIDGE_TEST_POSTGRES_URL=off")
PEOPLE = [{"name": n, "webhook": [f"sms:+10{i}"]} for i, n in enumerate(("ana", "budi", "cita"))]
ACTION = {"action": "Scale web to 0", "tool": "scale", "arguments": {"replicas": 0}}


async def vote(http: httpx.AsyncClient, sender: str) -> dict[str, Any]:
    body = json.dumps({"conversation": "+100", "sender": sender, "text": "approve"}).encode()
    got = await http.post("/v1/channels/webhook/sms", content=body, headers={
        SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body), "content-type": "application/json"})
    return dict(got.json())


async def test_three_replicas_decide_two_of_three_exactly_once(tmp_path: Path) -> None:
    async with scratch_database() as url, gateway(WEBHOOK_SECRET) as gw:
        config = make_config(tmp_path, store={"url": url}, people=PEOPLE,
                             webhooks={"sms": {"secret_env": "HOOK_SECRET", "url": gw.url}},
                             approvals=[{"approvers": ["ana", "budi", "cita"], "required": 2}])
        async with running(config) as a, running(config) as b, running(config) as c:
            https = [r.http() for r in (a, b, c)]
            try:
                call = asyncio.create_task(https[0].post(
                    "/v1/sessions/main/approve", json=ACTION,
                    headers={"Authorization": f"Bearer {AGENT_TOKEN}"}))
                await until(lambda: [p for p in gw.received if p["kind"] == "approval"])
                told = await asyncio.gather(*(vote(h, f"+10{i}") for i, h in enumerate(https)))
                result = (await asyncio.wait_for(call, 10)).json()
            finally:
                for h in https:
                    await h.aclose()
            replies = sorted(t["reply"] for t in told)
            assert replies.count("Approved.") == 1
            assert result["status"] == "approved" and len(result["decidedBy"]) == 2
            kinds = [e.kind for e in await a.bridge.store.audit_entries()]
            assert kinds.count("decided") == 1 and kinds.count("requested") == 1
            await until(lambda: [p for p in gw.received if p["kind"] == "status"])
            statuses = [p for p in gw.received if p["kind"] == "status"]
            assert len(statuses) == 1 and statuses[0]["text"].startswith("Approval: Approved by")
