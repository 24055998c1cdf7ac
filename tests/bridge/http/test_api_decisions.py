"""Odd inputs each decided one way: a body declared as something other than JSON is a 415; a
reply that is both an option's number and another option's label picks by number."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from bridge import SIGNATURE_HEADER, sign
from tests.adapters.webhook.support import post_reply
from tests.harness import AGENT_TOKEN, WEBHOOK_SECRET, make_config, running
from tests.samples import DEPLOY

NOT_JSON = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
            "text/html; charset=utf-8"]
STILL_JSON = ["", "application/json", "application/json; charset=utf-8",
              "application/merge-patch+json"]


async def test_a_body_declared_as_something_else_than_json_is_a_415(tmp_path: Path) -> None:
    body = json.dumps(DEPLOY).encode()
    async with running(make_config(tmp_path)) as r, r.http() as http:
        for kind in NOT_JSON:
            for route in ("/v1/sessions/a/questions", "/v1/sessions/a/ask"):
                response = await http.post(route, content=body, headers={
                    "Authorization": f"Bearer {AGENT_TOKEN}", "content-type": kind})
                assert response.status_code == 415, (kind, route, response.text)
                assert response.json()["error"] == "unsupported_media_type"
                assert "application/json" in response.json()["details"][0]["msg"]
            reply = json.dumps({"conversation": "+100", "sender": "+100", "text": "1"}).encode()
            hook = await http.post("/v1/channels/webhook/sms", content=reply, headers={
                SIGNATURE_HEADER: sign(WEBHOOK_SECRET, reply), "content-type": kind})
            assert hook.status_code == 415, (kind, hook.text)
        for index, kind in enumerate(STILL_JSON):
            headers = {"Authorization": f"Bearer {AGENT_TOKEN}"}
            if kind:
                headers["content-type"] = kind
            response = await http.post(f"/v1/sessions/ok{index}/questions", content=body,
                                       headers=headers)
            assert response.status_code == 202, (kind, response.text)
        spec = (await http.get("/openapi.json")).json()
        assert "415" in spec["paths"]["/v1/sessions/{session}/questions"]["post"]["responses"]


async def test_with_number_labels_a_reply_picks_by_number(tmp_path: Path) -> None:
    """Options "2" and "1": the reply `1` is the first option (label "2"), never the option
    labelled "1"; the label itself is picked by its number (`2`)."""
    ask = {"questions": [{"id": "pick", "header": "Pick", "question": "Which build?",
                          "options": [{"label": "2"}, {"label": "1"}]}]}
    async with running(make_config(tmp_path)) as r, r.http() as http, httpx.AsyncClient(
            base_url=r.url, trust_env=False, headers={
                "Authorization": f"Bearer {AGENT_TOKEN}"}) as agent:
        for reply, expected in (("1", ["2"]), ("2", ["1"])):
            created = (await agent.post("/v1/sessions/numbers/questions", json=ask)).json()
            assert (await post_reply(http, reply)).json()["accepted"] is True
            result = (await agent.get(f"/v1/questions/{created['id']}/result",
                                      params={"wait": 10})).json()
            assert result["answers"]["answers"]["pick"]["answers"] == expected, reply
