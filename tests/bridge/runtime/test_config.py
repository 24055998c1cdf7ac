"""The example config documents a config that really starts, with every adapter section in it."""

from __future__ import annotations

import tomllib
from pathlib import Path

from bridge.model.adapter import AdapterContext, AdapterPlugin
from bridge.runtime.config import parse_config
from bridge.server.composition import make_adapters
from tests.example import EXAMPLE, uncommented


def test_the_example_parses_and_builds_every_adapter() -> None:
    raw = tomllib.loads(uncommented())
    assert {"telegram", "discord", "slack", "webhooks"} <= raw.keys()
    raw.pop("store")
    config = parse_config(raw)
    env = {name: "x" * 24 for name in (
        "ASKBRIDGE_TOKEN", "ASKBRIDGE_WEB_TOKEN", "SMS_WEBHOOK_SECRET", "TELEGRAM_BOT_TOKEN",
        "TELEGRAM_WEBHOOK_SECRET", "DISCORD_BOT_TOKEN", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN",
        "SLACK_SIGNING_SECRET", "RESEARCHER_TOKEN")}
    env["TELEGRAM_BOT_TOKEN"] = "123456:" + "A" * 35
    adapters = make_adapters(config, env, _plugins())
    assert sorted(adapters) == ["discord", "slack", "telegram", "web", "webhook"]


def _plugins() -> list[AdapterPlugin]:
    from bridge.runtime.plugins import discover

    return discover()


async def test_adapters_get_their_own_state_in_the_store(tmp_path: Path) -> None:
    from bridge.server.composition import Bridge

    config = parse_config({"data_dir": str(tmp_path), "agents": [
        {"name": "a", "token_env": "T", "surfaces": ["web"]}]})
    built = Bridge.build(config, {"T": "t" * 20, "ASKBRIDGE_WEB_TOKEN": "w" * 20})
    await built.store.open()
    try:
        seen: list[AdapterContext] = []

        def probe(ctx: AdapterContext) -> None:
            seen.append(ctx)

        bare = parse_config({"agents": [{"name": "a", "token_env": "T", "surfaces": []}]})
        make_adapters(bare, {"T": "t" * 20}, [AdapterPlugin("probe", probe, ())], built.store)
        state = seen[0].state("probe")
        await state.put("k", "v")
        assert await state.get("k") == "v"
        assert await seen[0].state("other").get("k") is None
    finally:
        await built.store.close()
def test_the_example_as_shipped_has_no_live_placeholder() -> None:
    """Copied as is, the example must not send every prompt to an example host."""
    from bridge.cli.doctor import placeholders

    shipped = parse_config(tomllib.loads(EXAMPLE.read_text()))
    assert placeholders(shipped) == []
    assert shipped.agents[0].surfaces == ["web"]
    switched_on = parse_config(tomllib.loads(uncommented()))
    assert any("webhooks.sms.url" in p for p in placeholders(switched_on))  # doctor would say so
