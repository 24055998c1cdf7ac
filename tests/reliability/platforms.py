"""Every platform at once against fakes in the test process: Telegram (webhook mode), Slack (HTTP
mode), Discord (gateway) and the webhook channel, with the requests each platform would send."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from tests.fakes.discord import FakeDiscord
from tests.fakes.gateway import Gateway, gateway
from tests.fakes.slack import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, FakeSlack, fake_slack, signed_headers
from tests.fakes.telegram import TOKEN, FakeTelegram, payload
from tests.harness import WEBHOOK_SECRET
from tests.reliability.server import Server

TG_SECRET = "tg-webhook-secret-0123456789"
SLACK_USER = "U0123"
DISCORD_USER = 4001
OWNER = payload("user_owner")
CHAT = payload("chat_private_owner")
ENV = {"TELEGRAM_BOT_TOKEN": TOKEN, "TG_SECRET": TG_SECRET, "SLACK_BOT_TOKEN": BOT_TOKEN,
       "SLACK_APP_TOKEN": APP_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
       "DISCORD_BOT_TOKEN": "fake-bot-token", "MULTI_TOKEN": "multi-agent-token-0123456789"}


@dataclass
class Platforms:
    server: Server
    tg: FakeTelegram
    slack: FakeSlack
    discord: FakeDiscord
    gw: Gateway


def config(tg: FakeTelegram, slack: FakeSlack, discord: FakeDiscord, gw: Gateway,
           multi: list[str]) -> dict[str, Any]:
    return {
        "agents": [
            {"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main",
             "surfaces": ["webhook:sms:+100"]},
            {"name": "helper", "token_env": "SUB_TOKEN", "role": "subagent",
             "surfaces": ["web"]},
            {"name": "multi", "token_env": "MULTI_TOKEN", "role": "main", "surfaces": multi},
        ],
        "webhooks": {"sms": {"secret_env": "HOOK_SECRET", "url": gw.url, "timeout_seconds": 5}},
        "telegram": {"token_env": "TELEGRAM_BOT_TOKEN", "base_url": tg.base_url,
                     "mode": "webhook", "webhook_secret_env": "TG_SECRET",
                     "request_timeout": 5, "retry_base_seconds": 0.1, "pace": False},
        "slack": {"base_url": slack.base_url, "mode": "http", "answerers": [SLACK_USER],
                  "pace": False},
        "discord": {"token_env": "DISCORD_BOT_TOKEN", "api_base": discord.api_base,
                    "gateway_url": discord.gateway_url, "answerers": [DISCORD_USER],
                    "guild_ready_timeout": 0.05},
    }


@asynccontextmanager
async def platforms(tmp: Path, multi: list[str], log_level: str = "info"
                    ) -> AsyncIterator[Platforms]:
    # Hundreds of prompts to one chat per platform: these runs test races and hostile input,
    # not pacing (tests/adapters does), so the fakes take everything and nothing is paced.
    discord = await FakeDiscord(limits=False).start()
    try:
        async with gateway(WEBHOOK_SECRET) as gw, FakeTelegram(limits=False) as tg, \
                fake_slack() as slack:
            slack.limits = None
            server = Server(tmp, config(tg, slack, discord, gw, multi), ENV, log_level)
            await server.start()
            try:
                yield Platforms(server, tg, slack, discord, gw)
            finally:
                await server.stop()
    finally:
        await discord.stop()


# what each platform sends ------------------------------------------------------------------

def telegram_tap(tg: FakeTelegram, message: dict[str, Any], label: str, update_id: int
                 ) -> bytes:
    update = tg.callback_update(message, OWNER, tg.button_data(message, label))
    update["update_id"] = update_id
    return json.dumps(update).encode()


async def post_telegram(http: httpx.AsyncClient, body: bytes, secret: str | None = TG_SECRET
                        ) -> httpx.Response:
    headers = {"content-type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    return await http.post("/telegram/webhook", content=body, headers=headers)


def slack_click(message: dict[str, Any], label: str) -> str:
    from tests.fakes.slack import click_body

    return "payload=" + quote(json.dumps(click_body(message, label, SLACK_USER)))


async def post_slack(http: httpx.AsyncClient, raw: str, **sign: Any) -> httpx.Response:
    headers = {"content-type": "application/x-www-form-urlencoded", **signed_headers(raw, **sign)}
    return await http.post("/slack/events", content=raw.encode(), headers=headers)


def discord_click(discord: FakeDiscord, message: dict[str, Any], custom_id: str,
                  iid: str | None = None) -> dict[str, Any]:
    """One INTERACTION_CREATE (a button press) as the gateway dispatches it."""
    iid = iid or discord.snowflake()
    return {"id": iid, "application_id": str(discord.app_id), "type": 3,
            "data": {"custom_id": custom_id, "component_type": 2},
            "token": f"itoken-{iid}", "version": 1, "attachment_size_limit": 8388608,
            "app_permissions": "0", "locale": "en-US", "entitlements": [],
            "authorizing_integration_owners": {}, "context": 0, "message": message,
            **discord._where(int(message["channel_id"]), DISCORD_USER)}


def slack_stale(raw: str) -> dict[str, str]:
    return signed_headers(raw, timestamp=int(time.time()) - 600)
