"""An approval by e-mail, through aiosmtpd and Dovecot: the prompt carries the arguments, a
`tolak <alasan>` reply from a real mail client (quoted prompt and all) rejects with the reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.adapters.email.rig import PERSON, mail_rig, part, watching
from tests.harness import AGENT_TOKEN, make_config, running, until

DEPLOY: dict[str, Any] = {"action": "Deploy web to production", "tool": "deploy",
                          "arguments": {"env": "production"}}


async def test_a_reply_rejects_with_its_reason(tmp_path: Path) -> None:
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.http() as http:
            await watching(r)
            auth = {"authorization": f"Bearer {AGENT_TOKEN}"}
            created = await http.post("/v1/sessions/main/approvals", json=DEPLOY, headers=auth)
            assert created.status_code == 202, created.text
            approval_id = created.json()["id"]
            [prompt] = await until(lambda: rig.prompts())
            shown = part(prompt)
            assert "Deploy web to production" in shown and '"env": "production"' in shown
            await rig.reply("tolak jangan hari Jumat", "outlook_id.eml")

            async def ended() -> dict[str, Any] | None:
                found = (await http.get(f"/v1/approvals/{approval_id}", params={"wait": 1},
                                        headers=auth)).json()
                return found if found["status"] != "pending" else None
            result = (await until(ended, timeout=30))["result"]
            assert result["status"] == "rejected"
            assert result["reason"] == "jangan hari Jumat"
            assert result["decidedBy"] == [{"surface": f"email:{PERSON}", "user": PERSON}]
