"""Shared pieces of the Slack tests: configs, env, requests and message inspection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bridge.runtime.config import BridgeConfig
from tests.fakes.slack import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, FakeSlack
from tests.harness import base_env, make_config
from tests.samples import TARGET, ask, described

ANSWERER = "U0123"
ESCAPED = ask(described(TARGET, {"Staging (Recommended)": "safe & quick"}))
"""The sample question with a description Slack's mrkdwn must escape."""
TWO = {
    "questions": [
        {"id": "env", "header": "Env", "question": "Which <env> & region?",
         "options": [{"label": "Staging"}, {"label": "Production"}]},
        {"id": "checks", "header": "Checks", "question": "Which checks?", "multiSelect": True,
         "options": [{"label": "Lint"}, {"label": "Test"}, {"label": "Build"}]},
    ],
}


def slack_env() -> dict[str, str]:
    return {**base_env(), "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_APP_TOKEN": APP_TOKEN,
            "SLACK_SIGNING_SECRET": SIGNING_SECRET}


def slack_config(tmp: Path, fake: FakeSlack, surfaces: tuple[str, ...] = ("slack:C0123",),
                 **slack: Any) -> BridgeConfig:
    section = {"base_url": fake.base_url, "answerers": [ANSWERER], "connect_timeout_seconds": 5,
               **slack}
    return make_config(tmp, surfaces=list(surfaces), slack=section)


def answered(**answers: list[str]) -> dict[str, Any]:
    return {"status": "answered",
            "answers": {"answers": {qid: {"answers": a} for qid, a in answers.items()}}}


def buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]]


def status_of(message: dict[str, Any]) -> str | None:
    """The status line chat.update put in the context block, or None while still open."""
    for block in message["blocks"]:
        if block["type"] == "context":
            return str(block["elements"][0]["text"]).strip("*")
    return None
