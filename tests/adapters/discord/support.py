"""Shared pieces of the Discord tests: named people, a two-question ask, configs, the prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bridge import BridgeConfig, SurfaceId
from tests.fakes.discord import FakeDiscord
from tests.harness import Running, base_env, make_config, until

ANSWERER = 4001
STRANGER = 4002
TWO = {
    "questions": [
        {"id": "env", "header": "Env", "question": "Which environment?",
         "options": [{"label": "Staging"}, {"label": "Production"}]},
        {"id": "steps", "header": "Steps", "question": "Which steps should run?",
         "multiSelect": True,
         "options": [{"label": "Lint"}, {"label": "Test"}, {"label": "Build"}]},
    ],
}


def config(tmp: Path, fake: FakeDiscord, channel: int | None = None,
           **extra: Any) -> BridgeConfig:
    section = {"token_env": "DISCORD_BOT_TOKEN", "api_base": fake.api_base,
               "gateway_url": fake.gateway_url, "answerers": [ANSWERER],
               "guild_ready_timeout": 0.05, **extra}
    return make_config(tmp, surfaces=[f"discord:{channel or fake.channel_id}"], discord=section)


def env(fake: FakeDiscord) -> dict[str, str]:
    return {**base_env(), "DISCORD_BOT_TOKEN": fake.token}


async def prompt_in(fake: FakeDiscord, r: Running, channel: int | None = None) -> dict[str, Any]:
    """The prompt at the fake, once the broker has also recorded its delivery (replies bind)."""
    channel = channel or fake.channel_id
    messages = await until(lambda: fake.in_channel(channel))
    await until(lambda: r.bridge.store.pending_on_surface(SurfaceId(f"discord:{channel}")))
    return dict(messages[-1])
