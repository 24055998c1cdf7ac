"""One rule for a failed start, per platform: a refused credential ends `serve` with one
sentence naming its variable (no traceback, no banner); an unreachable platform is retried
while everything else serves, and the banner comes only once the port listens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.discord import FakeDiscord
from tests.fakes.slack import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, fake_slack
from tests.fakes.telegram import TOKEN, FakeTelegram
from tests.harness import free_port
from tests.starts import BANNER, Start, start, unused_url

AGENT = {"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main", "surfaces": ["web"]}


def refused(outcome: Start, variable: str) -> None:
    assert outcome.returncode not in (None, 0), outcome.output
    assert f"${variable}" in outcome.output, outcome.output
    assert "Traceback" not in outcome.output, outcome.output
    assert BANNER not in outcome.output, outcome.output
    said = [line for line in outcome.logs.splitlines() if line.startswith("askbridge: ")]
    assert len(said) == 1 and said[0].count(". ") <= 1, outcome.logs  # one sentence at the end
    one_format("\n".join(line for line in outcome.logs.splitlines() if line not in said))


def served(outcome: Start, retry_event: str) -> None:
    assert outcome.returncode is None, outcome.output
    assert retry_event in outcome.output, outcome.output
    assert "Traceback" not in outcome.output, outcome.output
    one_format(outcome.logs)


def one_format(logs: str) -> None:
    """Every line the process logs is structlog's JSON (the libraries' too), noise left out."""
    for line in logs.splitlines():
        assert isinstance(json.loads(line), dict), line
    assert "PyNaCl" not in logs


def telegram(base_url: str) -> dict[str, Any]:
    return {"agents": [AGENT], "telegram": {
        "token_env": "TELEGRAM_BOT_TOKEN", "base_url": base_url, "retry_base_seconds": 0.1,
        "request_timeout": 5}}


async def test_telegram_refused_token_ends_the_start(tmp_path: Path) -> None:
    async with FakeTelegram() as tg:
        outcome = await start(tmp_path, telegram(tg.base_url),
                              {"TELEGRAM_BOT_TOKEN": "123:not-the-token"})
    refused(outcome, "TELEGRAM_BOT_TOKEN")


async def test_telegram_unreachable_is_retried_while_serving(tmp_path: Path) -> None:
    outcome = await start(tmp_path, telegram(unused_url(free_port(), "/bot")),
                          {"TELEGRAM_BOT_TOKEN": TOKEN})
    served(outcome, "telegram_unreachable")


def discord(fake_api: str, fake_gateway: str) -> dict[str, Any]:
    return {"agents": [AGENT], "discord": {
        "token_env": "DISCORD_BOT_TOKEN", "api_base": fake_api, "gateway_url": fake_gateway,
        "guild_ready_timeout": 0.05, "ready_timeout": 2}}


async def test_discord_refused_token_ends_the_start(tmp_path: Path) -> None:
    fake = await FakeDiscord().start()
    try:
        outcome = await start(tmp_path, discord(fake.api_base, fake.gateway_url),
                              {"DISCORD_BOT_TOKEN": "not-the-token"})
    finally:
        await fake.stop()
    refused(outcome, "DISCORD_BOT_TOKEN")


async def test_discord_unreachable_is_retried_while_serving(tmp_path: Path) -> None:
    port = free_port()
    outcome = await start(tmp_path, discord(unused_url(port, "/api/v10"),
                                            f"ws://127.0.0.1:{port}/gateway"),
                          {"DISCORD_BOT_TOKEN": FakeDiscord.token})
    served(outcome, "discord_login_retry")


def slack(base_url: str) -> dict[str, Any]:
    return {"agents": [AGENT], "slack": {"base_url": base_url, "mode": "socket", "retries": 0,
                                         "connect_timeout_seconds": 1}}


SLACK_ENV = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_APP_TOKEN": APP_TOKEN,
             "SLACK_SIGNING_SECRET": SIGNING_SECRET}


@pytest.mark.parametrize("variable", ["SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"])
async def test_slack_refused_token_ends_the_start(tmp_path: Path, variable: str) -> None:
    async with fake_slack() as fake:
        outcome = await start(tmp_path, slack(fake.base_url),
                              {**SLACK_ENV, variable: "xoxb-not-the-token"})
    refused(outcome, variable)


async def test_slack_unreachable_is_retried_while_serving(tmp_path: Path) -> None:
    outcome = await start(tmp_path, slack(unused_url(free_port(), "/api/")), SLACK_ENV)
    served(outcome, "slack_socket_connect_failed")
