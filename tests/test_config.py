"""The example config documents a config that really starts, with every adapter section in it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from bridge.app import make_adapters
from bridge.config import parse_config

EXAMPLE = Path(__file__).resolve().parent.parent / "config" / "askbridge.example.toml"


def uncommented() -> str:
    """The example with every commented-out adapter table and key switched on."""
    lines = []
    inside = False
    for line in EXAMPLE.read_text().splitlines():
        if re.match(r"^# \[(telegram|discord|slack|webhooks\.sms)\]$", line):
            inside = True
        elif not line.strip():
            inside = False
        if inside and re.match(r"^# (\[|[a-z_]+ = )", line):
            line = line[2:]
        lines.append(line)
    text = "\n".join(lines)
    assert "[[agents]]" in text
    return text


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


def _plugins():  # type: ignore[no-untyped-def]
    from bridge.plugins import discover

    return discover()


def test_the_example_as_shipped_has_no_live_placeholder() -> None:
    """Copied as is, the example must not send every prompt to an example host."""
    from bridge.doctor import placeholders

    shipped = parse_config(tomllib.loads(EXAMPLE.read_text()))
    assert placeholders(shipped) == []
    assert shipped.agents[0].surfaces == ["web"]
    switched_on = parse_config(tomllib.loads(uncommented()))
    assert any("webhooks.sms.url" in p for p in placeholders(switched_on))  # doctor would say so
