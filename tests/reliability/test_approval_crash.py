"""A pending approval survives SIGKILL: its prompt, its deadline and the votes cast so far come
back, the next vote decides it, and the audit chain holds across the crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bridge import SIGNATURE_HEADER, sign
from tests.fakes.gateway import gateway
from tests.harness import WEBHOOK_SECRET, until
from tests.reliability.server import Server

PEOPLE = [{"name": "ana", "webhook": ["sms:+100"]}, {"name": "budi", "webhook": ["sms:+101"]}]
ACTION = {"action": "Rotate the API keys", "tool": "keys.rotate", "arguments": {"scope": "all"}}


async def test_a_pending_approval_survives_sigkill(tmp_path: Path) -> None:
    async with gateway(WEBHOOK_SECRET) as gw:
        server = Server(tmp_path, {
            "agents": [{"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main",
                        "surfaces": ["webhook:sms:+100"]}],
            "webhooks": {"sms": {"secret_env": "HOOK_SECRET", "url": gw.url}},
            "people": PEOPLE, "approvals": [{"approvers": ["ana", "budi"], "required": 2}]})
        await server.start()
        try:
            async with server.http() as http:
                created = (await http.post("/v1/sessions/main/approvals", json=ACTION)).json()
                aid = created["id"]
                await until(lambda: [p for p in gw.received if p["kind"] == "approval"])

                async def vote(sender: str) -> dict[str, Any]:
                    body = json.dumps({"conversation": "+100", "sender": sender,
                                       "text": "approve"}).encode()
                    got = await http.post("/v1/channels/webhook/sms", content=body, headers={
                        SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body),
                        "content-type": "application/json"})
                    return dict(got.json())

                assert (await vote("+100"))["reply"] == "Recorded: 1 of 2 approvals."
            server.kill()
            await server.wait_dead()
            await server.start()
            async with server.http() as http:
                record = (await http.get(f"/v1/approvals/{aid}")).json()
                assert record["status"] == "pending" and record["expiresAt"] == created["expiresAt"]
                assert [v["voter"] for v in record["votes"]] == ["ana"]
                assert (await vote("+100"))["accepted"] is False  # still counted once
                assert (await vote("+101"))["reply"] == "Approved."
                result = (await http.get(f"/v1/approvals/{aid}/result", params={"wait": 5})).json()
                assert result["status"] == "approved"
                assert [d["user"] for d in result["decidedBy"]] == ["+100", "+101"]
                report = (await http.get("/v1/audit/verify")).json()
                assert report == {"ok": True, "entries": 4, "brokenAt": None, "problem": None}
        finally:
            await server.stop()
