"""The adapter contract every adapter passes, each against its own fake platform server.

Whatever the platform: the adapter is an `Adapter`, declares capabilities as data, delivers a
prompt and hands the broker a message reference, finalizes that message exactly once when the
question ends, and reports an unusable surface as `DeliveryError` — never another exception.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from starlette.routing import BaseRoute

from bridge import Adapter, Capabilities, DeliveryError, SurfaceId
from bridge.rendering import build_prompt
from tests.adapters.webhook.test_webhook_e2e import DEPLOY
from tests.fakes.discord import FakeDiscord
from tests.fakes.gateway import gateway
from tests.fakes.slack import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, fake_slack
from tests.fakes.telegram import TOKEN, FakeTelegram, payload
from tests.harness import WEBHOOK_SECRET, base_env, make_config, running, until


@dataclass
class Rig:
    platform: str
    surface: str
    bad_surface: str
    sections: dict[str, Any]
    env: dict[str, str]
    edits: Callable[[], int]
    """How many message edits (finalizations) the fake platform has seen."""


@asynccontextmanager
async def webhook_rig() -> AsyncIterator[Rig]:
    async with gateway(WEBHOOK_SECRET) as gw:
        yield Rig("webhook", "webhook:sms:+100", "webhook:nowhere:+1",
                  {"webhooks": {"sms": {"secret_env": "HOOK_SECRET", "url": gw.url}}},
                  base_env(), lambda: len(gw.statuses()))


@asynccontextmanager
async def telegram_rig() -> AsyncIterator[Rig]:
    chat = payload("chat_private_owner")
    async with FakeTelegram() as fake:
        fake.add_chat(chat)
        yield Rig("telegram", f"telegram:{chat['id']}", "telegram:not-a-chat",
                  {"telegram": {"base_url": fake.base_url, "poll_timeout": 1,
                                "retry_base_seconds": 0.05}},
                  {**base_env(), "TELEGRAM_BOT_TOKEN": TOKEN},
                  lambda: len(fake.calls_of("editMessageText")))


@asynccontextmanager
async def discord_rig() -> AsyncIterator[Rig]:
    fake = await FakeDiscord().start()
    try:
        yield Rig("discord", f"discord:{fake.channel_id}", "discord:general",
                  {"discord": {"api_base": fake.api_base, "gateway_url": fake.gateway_url,
                               "guild_ready_timeout": 0.05}},
                  {**base_env(), "DISCORD_BOT_TOKEN": fake.token}, lambda: len(fake.edits))
    finally:
        await fake.stop()


@asynccontextmanager
async def slack_rig() -> AsyncIterator[Rig]:
    async with fake_slack() as fake:
        yield Rig("slack", "slack:C0123", "slack:",
                  {"slack": {"base_url": fake.base_url, "connect_timeout_seconds": 5}},
                  {**base_env(), "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_APP_TOKEN": APP_TOKEN,
                   "SLACK_SIGNING_SECRET": SIGNING_SECRET},
                  lambda: len(fake.called("chat.update")))


@asynccontextmanager
async def matrix_rig() -> AsyncIterator[Rig]:
    """Not a fake: the process's real Synapse (started once), a fresh room and bot login."""
    from tests.adapters.matrix.people import Person, make_room
    from tests.adapters.matrix.synapse import homeserver

    hs = await asyncio.to_thread(homeserver)
    bot, person = Person(hs, hs.users["askbot"]), Person(hs, hs.users["person"])
    room = await make_room(person, bot)
    token = await asyncio.to_thread(hs.login, "askbot")

    def edits() -> int:  # the edits (m.replace) of the bot's messages, as the person sees them
        with hs.http(person.user.token) as http:
            chunk = http.get(f"/_matrix/client/v3/rooms/{quote(room)}/messages",
                             params={"dir": "b", "limit": 500}).json()["chunk"]
        return sum(1 for e in chunk if e["sender"] == bot.id
                   and e["content"].get("m.relates_to", {}).get("rel_type") == "m.replace")

    yield Rig("matrix", f"matrix:{room}", "matrix:#not-a-room-id:test.local",
              {"matrix": {"homeserver": hs.url, "user_id": bot.id, "answerers": [person.id],
                          "sync_timeout": 5}},
              {**base_env(), "MATRIX_ACCESS_TOKEN": token}, edits)


@asynccontextmanager
async def web_rig() -> AsyncIterator[Rig]:
    yield Rig("web", "web", "web", {}, base_env(), lambda: 0)


RIGS = {"webhook": webhook_rig, "telegram": telegram_rig, "discord": discord_rig,
        "slack": slack_rig, "web": web_rig, "matrix": matrix_rig}


@pytest.mark.parametrize("platform", sorted(RIGS))
async def test_adapter_contract(platform: str, tmp_path: Path) -> None:
    async with RIGS[platform]() as rig:
        config = make_config(tmp_path, surfaces=[rig.surface], **rig.sections)
        async with running(config, rig.env) as r, r.client() as client:
            adapter = r.bridge.adapters[rig.platform]
            assert isinstance(adapter, Adapter) and adapter.platform == rig.platform
            caps = adapter.capabilities(SurfaceId(rig.surface))
            assert isinstance(caps, Capabilities) and caps.max_len >= 160
            assert all(isinstance(route, BaseRoute) for route in adapter.routes())

            qid = (await client.create(DEPLOY))["id"]
            delivered = await until(lambda: _delivered(r, qid))
            assert isinstance(delivered.message_ref, str) and delivered.message_ref

            record = await r.bridge.store.get_question(qid)
            assert record is not None
            prompt = build_prompt(record, caps.buttons)
            assert (prompt.buttons is not None) == caps.buttons
            if rig.platform != "web":  # the web surface has no addresses to get wrong
                with pytest.raises(DeliveryError) as refused:
                    await adapter.deliver(SurfaceId(rig.bad_surface), prompt)
                assert str(refused.value), "a DeliveryError says why"

            edits_before = rig.edits()
            assert (await client.cancel(qid)).reason == "cancelled"
            await until(lambda: _finalized(r, qid))
            if rig.platform != "web":
                await until(lambda: rig.edits() > edits_before)
                assert rig.edits() == edits_before + 1, "finalized exactly once"


async def _delivered(r: Any, qid: str) -> Any:
    rows = await r.bridge.store.deliveries(qid)
    return rows[0] if rows and rows[0].state == "delivered" else None


async def _finalized(r: Any, qid: str) -> bool:
    return all(d.finalized for d in await r.bridge.store.deliveries(qid))
