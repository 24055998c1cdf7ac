"""Config: the example really starts with every adapter section, and bad keys, locales and reach
settings are refused at start."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from bridge.model.adapter import AdapterContext, AdapterPlugin
from bridge.runtime.config import ConfigError, load_config, parse_config
from bridge.server.composition import make_adapters
from bridge.text.i18n import LOCALES
from tests.bridge.support import reach_config
from tests.example import EXAMPLE, uncommented
from tests.harness import make_config


def test_the_example_parses_and_builds_every_adapter() -> None:
    raw = tomllib.loads(uncommented())
    assert {"telegram", "discord", "slack", "email", "webhooks"} <= raw.keys()
    raw.pop("store")
    config = parse_config(raw)
    env = {name: "x" * 24 for name in (
        "ASKBRIDGE_TOKEN", "ASKBRIDGE_WEB_TOKEN", "SMS_WEBHOOK_SECRET", "TELEGRAM_BOT_TOKEN",
        "TELEGRAM_WEBHOOK_SECRET", "DISCORD_BOT_TOKEN", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN",
        "SLACK_SIGNING_SECRET", "RESEARCHER_TOKEN", "SMTP_USER", "SMTP_PASSWORD", "IMAP_USER",
        "IMAP_PASSWORD", "EMAIL_INBOUND_SECRET")}
    env["TELEGRAM_BOT_TOKEN"] = "123456:" + "A" * 35
    adapters = make_adapters(config, env, _plugins())
    assert sorted(adapters) == ["discord", "email", "slack", "telegram", "web", "webhook"]


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


def test_load_config_suggests_keys_inside_agents(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[[agents]]\nname = "a"\ntoken_env = "X"\nsurface = ["web"]\n')
    with pytest.raises(ConfigError, match=r'agents\[0\]\.surface: unknown key "surface"; did you '
                                          r'mean "surfaces"\?'):
        load_config(path)


def _config(**extra: Any) -> dict[str, Any]:
    agent = {"name": "a", "token_env": "T", "surfaces": ["web"], **extra.pop("agent", {})}
    return {"agents": [agent], **extra}


def test_agent_locale_defaults_to_english_and_refuses_unknown_ones() -> None:
    assert parse_config(_config()).agents[0].locale == "en"
    assert parse_config(_config(agent={"locale": "id"})).agents[0].locale == "id"
    with pytest.raises(ConfigError) as refused:
        parse_config(_config(agent={"locale": "fr"}))
    assert "fr" in str(refused.value) and ", ".join(LOCALES) in str(refused.value)


def test_platform_sections_refuse_unknown_locales() -> None:
    from bridge.runtime.plugins import discover
    from bridge.server.composition import make_adapters

    with pytest.raises(ConfigError, match=r"\[web\] has problems: locale: .*en, id"):
        make_adapters(parse_config(_config(web={"locale": "de"})),
                      {"T": "t", "ASKBRIDGE_WEB_TOKEN": "w"}, discover())
    raw = _config(agent={"surfaces": ["webhook:sms:+1"]},
                  webhooks={"sms": {"secret_env": "S", "locale": "xx"}})
    with pytest.raises(ConfigError, match="unknown locale 'xx'; askbridge speaks en, id"):
        make_adapters(parse_config(raw), {"S": "s", "T": "t", "ASKBRIDGE_WEB_TOKEN": "w"},
                      discover())


@pytest.mark.parametrize(("agent", "says"), [
    ({"remind_after": [600, 300]}, "remind_after must be in ascending order"),
    ({"remind_after": [0]}, "remind_after takes seconds greater than 0"),
    ({"escalation": [{"after": 60, "surfaces": ["web"]}, {"after": 30, "surfaces": ["web"]}]},
     "escalation tiers' `after` must be in ascending order"),
    ({"escalation": [{"after": 60, "surfaces": []}]}, r"escalation\[0\].surfaces"),
])
def test_reach_settings_are_checked_at_start(tmp_path: Path, agent: dict[str, Any],
                                             says: str) -> None:
    with pytest.raises(ConfigError, match=says.replace("`", ".")):
        reach_config(tmp_path, "http://127.0.0.1:9/x", **agent)


def test_event_hooks_need_their_secret(tmp_path: Path) -> None:
    from bridge.server.composition import Bridge
    from tests.harness import base_env

    raw = make_config(tmp_path).model_dump()
    raw["events"] = [{"url": "http://127.0.0.1:9/hook", "secret_env": "NOPE_SECRET"}]
    config = parse_config({k: v for k, v in raw.items() if k not in ("server", "web")})
    with pytest.raises(ConfigError, match=r"\$NOPE_SECRET"):
        Bridge.build(config, base_env())


def test_store_keep_is_a_duration_or_forever_and_says_what_to_write_otherwise() -> None:
    assert parse_config({}).store.keep_seconds == 30 * 86_400
    assert parse_config({"store": {"keep": "90s"}}).store.keep_seconds == 90
    assert parse_config({"store": {"keep": "12h"}}).store.keep_seconds == 12 * 3600
    assert parse_config({"store": {"keep": "forever"}}).store.keep_seconds is None
    for bad in ("30 days", "0d", "2w", "", 30):
        with pytest.raises(ConfigError, match=r'store\.keep: use a duration such as "90s", '
                                              r'"15m", "12h" or "30d" .* or "forever"'):
            parse_config({"store": {"keep": bad}})
