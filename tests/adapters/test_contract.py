"""The adapter contract every adapter passes, each against its own fake platform server.

Whatever the platform: the adapter is an `Adapter`, declares capabilities as data, delivers a
prompt and hands the broker a message reference, finalizes that message exactly once when the
question ends, and reports an unusable surface as `DeliveryError` — never another exception.
It does so in every locale: an Indonesian prompt and its status line carry no English chrome,
and Indonesian text replies (`1 dan 3`, `lewati`) resolve on every text surface.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.routing import BaseRoute

from bridge import Adapter, BridgeConfig, Capabilities, DeliveryError, SurfaceId
from bridge.rendering import build_prompt
from tests.adapters.webhook.test_webhook_e2e import CHECKS, DEPLOY, post_reply
from tests.fakes.discord import FakeDiscord
from tests.fakes.gateway import gateway
from tests.fakes.slack import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, fake_slack, message_body
from tests.fakes.telegram import TOKEN, FakeTelegram, payload
from tests.harness import WEBHOOK_SECRET, Running, base_env, make_config, running, until

ENGLISH_CHROME = re.compile(
    r"\b(Skip|skip|Other|Expires|Reply|reply|Answered|Cancelled|Skipped|Expired|Thanks|"
    r"choose|own answer|Submit|Done|Back|Next|questions?)\b")
"""Words askbridge writes in English; none may show in an Indonesian prompt or status line
(the agent's own words in these tests avoid them)."""
VISIBLE = {"text", "content", "label", "title", "placeholder", "description"}


@dataclass
class Rig:
    platform: str
    surface: str
    bad_surface: str
    sections: dict[str, Any]
    env: dict[str, str]
    edits: Callable[[], int]
    """How many message edits (finalizations) the fake platform has seen."""
    shown: Callable[[], list[Any]] = list
    """Every prompt payload the fake platform received."""
    finals: Callable[[], list[Any]] = list
    """Every finalization (edit or status) payload it received."""
    reply: Callable[[Running, str], Awaitable[None]] | None = None
    """Send a text reply as a person allowed to answer (text surfaces only)."""


@asynccontextmanager
async def webhook_rig() -> AsyncIterator[Rig]:
    async def reply(r: Running, text: str) -> None:
        async with r.http() as http:
            (await post_reply(http, text)).raise_for_status()

    async with gateway(WEBHOOK_SECRET) as gw:
        yield Rig("webhook", "webhook:sms:+100", "webhook:nowhere:+1",
                  {"webhooks": {"sms": {"secret_env": "HOOK_SECRET", "url": gw.url}}},
                  base_env(), lambda: len(gw.statuses()), gw.prompts, gw.statuses, reply)


@asynccontextmanager
async def telegram_rig() -> AsyncIterator[Rig]:
    chat = payload("chat_private_owner")
    async with FakeTelegram() as fake:
        fake.add_chat(chat)

        async def reply(r: Running, text: str) -> None:
            await fake.say(chat, payload("user_owner"), text)

        yield Rig("telegram", f"telegram:{chat['id']}", "telegram:not-a-chat",
                  {"telegram": {"base_url": fake.base_url, "poll_timeout": 1,
                                "retry_base_seconds": 0.05}},
                  {**base_env(), "TELEGRAM_BOT_TOKEN": TOKEN},
                  lambda: len(fake.calls_of("editMessageText")),
                  lambda: fake.calls_of("sendMessage"), lambda: fake.calls_of("editMessageText"),
                  reply)


@asynccontextmanager
async def discord_rig() -> AsyncIterator[Rig]:
    fake = await FakeDiscord().start()
    person = 4001

    async def reply(r: Running, text: str) -> None:
        prompt = fake.in_channel(fake.channel_id)[-1]
        await fake.user_message(fake.channel_id, person, text, reply_to=prompt)

    try:
        yield Rig("discord", f"discord:{fake.channel_id}", "discord:general",
                  {"discord": {"api_base": fake.api_base, "gateway_url": fake.gateway_url,
                               "guild_ready_timeout": 0.05, "answerers": [person]}},
                  {**base_env(), "DISCORD_BOT_TOKEN": fake.token}, lambda: len(fake.edits),
                  lambda: list(fake.messages.values()), lambda: [b for _, b in fake.edits],
                  reply)
    finally:
        await fake.stop()


@asynccontextmanager
async def slack_rig() -> AsyncIterator[Rig]:
    async with fake_slack() as fake:
        async def reply(r: Running, text: str) -> None:
            await fake.wait_connected()
            await fake.send_envelope("events_api", message_body("C0123", text))

        yield Rig("slack", "slack:C0123", "slack:",
                  {"slack": {"base_url": fake.base_url, "connect_timeout_seconds": 5,
                             "answerers": ["U0123"]}},
                  {**base_env(), "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_APP_TOKEN": APP_TOKEN,
                   "SLACK_SIGNING_SECRET": SIGNING_SECRET},
                  lambda: len(fake.called("chat.update")), lambda: fake.called("chat.postMessage"),
                  lambda: fake.called("chat.update"), reply)


@asynccontextmanager
async def web_rig() -> AsyncIterator[Rig]:
    yield Rig("web", "web", "web", {}, base_env(), lambda: 0)


RIGS = {"webhook": webhook_rig, "telegram": telegram_rig, "discord": discord_rig,
        "slack": slack_rig, "web": web_rig}


def speaking(config: BridgeConfig, locale: str) -> BridgeConfig:
    """The config with every agent writing in `locale` (platform sections set none)."""
    agents = [a.model_copy(update={"locale": locale}) for a in config.agents]
    return config.model_copy(update={"agents": agents})


def visible(payload: Any) -> list[str]:
    """Every piece of text a person sees in a platform payload (keyboards, blocks, modals)."""
    if isinstance(payload, dict):
        found: list[str] = []
        for key, value in payload.items():
            if key == "reply_markup" and isinstance(value, str):  # Telegram sends it as JSON
                value = json.loads(value)
            if key in VISIBLE and isinstance(value, str):
                found.append(value)
            else:
                found += visible(value)
        return found
    if isinstance(payload, list):
        return [text for item in payload for text in visible(item)]
    return []


def check_words(texts: list[str], locale: str, english: str, indonesian: str) -> None:
    shown = "\n".join(texts)
    if locale == "id":
        assert indonesian in shown.casefold(), shown
        assert not ENGLISH_CHROME.search(shown), f"English chrome in an id message: {shown}"
    else:
        assert english in shown.casefold(), shown


@pytest.mark.parametrize("locale", ["en", "id"])
@pytest.mark.parametrize("platform", sorted(RIGS))
async def test_adapter_contract(platform: str, locale: str, tmp_path: Path) -> None:
    async with RIGS[platform]() as rig:
        config = speaking(make_config(tmp_path, surfaces=[rig.surface], **rig.sections), locale)
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
            prompt = build_prompt(record, caps.buttons,
                                  r.bridge.broker.locale_for(record.agent, SurfaceId(rig.surface)))
            assert (prompt.buttons is not None) == caps.buttons and prompt.locale == locale
            check_words([prompt.text, *(b.label for b in prompt.buttons or ())], locale,
                        "expires", "kedaluwarsa")
            if rig.platform != "web":  # the page writes its own words (tests/adapters/web)
                check_words(visible(rig.shown()), locale, "skip", "lewati")
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
                check_words(visible(rig.finals()), locale, "cancelled", "dibatalkan")


async def _delivered(r: Any, qid: str) -> Any:
    rows = await r.bridge.store.deliveries(qid)
    return rows[0] if rows and rows[0].state == "delivered" else None


async def _finalized(r: Any, qid: str) -> bool:
    return all(d.finalized for d in await r.bridge.store.deliveries(qid))


TEXT_SURFACES = sorted(name for name in RIGS if name != "web")


@pytest.mark.parametrize("platform", TEXT_SURFACES)
async def test_indonesian_text_replies_resolve(platform: str, tmp_path: Path) -> None:
    """`1 dan 3` picks two options and `lewati` skips, whatever the surface's own locale."""
    async with RIGS[platform]() as rig:
        assert rig.reply is not None
        config = make_config(tmp_path, surfaces=[rig.surface], **rig.sections)
        async with running(config, rig.env) as r, r.client() as client:
            ask = asyncio.create_task(client.ask({"questions": [CHECKS]}))
            await until(lambda: _delivered_to(r, rig.surface))
            await rig.reply(r, "1 dan 3")
            result = await asyncio.wait_for(ask, 10)
            assert result.answer_map() == {"checks": ["Lint", "Build"]}

            ask = asyncio.create_task(client.ask(DEPLOY))
            await until(lambda: _delivered_to(r, rig.surface))
            await rig.reply(r, "lewati")
            result = await asyncio.wait_for(ask, 10)
            assert (result.status, result.reason) == ("no_answer", "skipped")


async def _delivered_to(r: Any, surface: str) -> bool:
    return bool(await r.bridge.store.pending_on_surface(surface, "delivered"))
