"""What the reliability scenarios do over and over: ask without blocking, reply, read records."""

from __future__ import annotations

import json
from typing import Any

import httpx

from bridge.runtime.security import SIGNATURE_HEADER, sign
from tests.harness import WEBHOOK_SECRET
from tests.reliability.server import gather_limited
from tests.samples import TARGET, ask

OPTIONS = [o["label"] for o in TARGET["options"]]


def question(timeout: int = 900, qid: str = "target") -> dict[str, Any]:
    """The sample question under the id `qid`, open for `timeout` seconds."""
    return ask({**TARGET, "id": qid}, timeoutSeconds=timeout)


async def create(http: httpx.AsyncClient, session: str, body: dict[str, Any] | None = None
                 ) -> dict[str, Any]:
    """`POST /v1/sessions/{s}/questions`: 202 `{id, status, expiresAt}`."""
    r = await http.post(f"/v1/sessions/{session}/questions", json=body or question())
    assert r.status_code == 202, r.text
    data: dict[str, Any] = r.json()
    return data


async def record(http: httpx.AsyncClient, question_id: str) -> dict[str, Any]:
    r = await http.get(f"/v1/questions/{question_id}")
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


async def ended(http: httpx.AsyncClient, question_id: str) -> dict[str, Any] | None:
    """The record once the question is no longer pending (a predicate for `until`)."""
    view = await record(http, question_id)
    return view if view["status"] != "pending" else None


async def delivered(http: httpx.AsyncClient, question_id: str, platform: str) -> bool:
    """The broker recorded the delivery on `platform`, so a tap or reply there binds to it."""
    view = await record(http, question_id)
    return any(d["surface"].startswith(platform) and d["state"] == "delivered"
               for d in view["deliveries"])


async def none_sending(http: httpx.AsyncClient, question_ids: list[str]) -> bool:
    """Every delivery of these questions has its outcome recorded (none is still being sent)."""
    views = await gather_limited(record(http, question_id) for question_id in question_ids)
    return all(d["state"] != "sending" for view in views for d in view["deliveries"])


def signed(payload: dict[str, Any], secret: str = WEBHOOK_SECRET) -> tuple[bytes, dict[str, str]]:
    body = json.dumps(payload).encode()
    return body, {"content-type": "application/json", SIGNATURE_HEADER: sign(secret, body)}


async def reply(http: httpx.AsyncClient, text: str, reply_to: str | None = None,
                conversation: str = "+100", sender: str = "+100", channel: str = "sms"
                ) -> httpx.Response:
    """A person's text on the webhook channel, signed like the gateway signs it."""
    payload: dict[str, Any] = {"conversation": conversation, "sender": sender, "text": text}
    if reply_to:
        payload["replyTo"] = reply_to
    body, headers = signed(payload)
    return await http.post(f"/v1/channels/webhook/{channel}", content=body, headers=headers)


def answer_of(view: dict[str, Any]) -> list[str] | None:
    """The answers of a one-question record (`target`), or None when it has none."""
    result = view.get("result") or {}
    if result.get("status") != "answered":
        return None
    answers: list[str] = result["answers"]["answers"]["target"]["answers"]
    return answers
