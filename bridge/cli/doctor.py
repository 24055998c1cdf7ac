"""`askbridge doctor`: validate a config, open the store, and check each platform's credentials."""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from bridge.model.adapter import Checkable, DeliveryError
from bridge.runtime.config import BridgeConfig, ConfigError, default_env, embedded_defaults, load_config
from bridge.server.composition import Bridge
from bridge.text.i18n import tr

PLACEHOLDER_HOSTS = ("example.com", "example.net", "example.org", "example")
"""Reserved example domains (RFC 2606): a URL there was copied from an example, never set."""


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]")
    elif isinstance(value, str):
        yield path, value


def placeholders(config: BridgeConfig) -> list[str]:
    """Every URL in the config that still points at an example host."""
    raw = config.model_dump(exclude={"agents"})
    found = []
    for key, value in _strings(raw, ""):
        host = (urlsplit(value).hostname or "") if "://" in value else ""
        if host and any(host == p or host.endswith("." + p) for p in PLACEHOLDER_HOSTS):
            found.append(tr("en", "{key} = \"{value}\" is an example address; put the real one "
                            "there, or comment the setting out.", key=key, value=value))
    return found


def _load(path: str | None) -> tuple[BridgeConfig, dict[str, str], str]:
    if path:
        return load_config(path), dict(os.environ), f"config {path}"
    config = embedded_defaults()
    env, _ = default_env(config.data_dir, dict(os.environ))
    return config, env, "embedded defaults (no config file)"


async def _check_adapters(bridge: Bridge) -> int:
    problems = 0
    for name, adapter in bridge.adapters.items():
        if not isinstance(adapter, Checkable):
            print(f"ok    {name}: configured")
            continue
        try:
            found = await asyncio.wait_for(adapter.check(), 20)
            print(f"ok    {name}: {found}")
        except (DeliveryError, TimeoutError, OSError) as exc:
            problems += 1
            print(f"FAIL  {name}: {exc or tr('en', 'no answer in 20 s')}")
    return problems


async def run_doctor(args: argparse.Namespace) -> int:
    path = args.config or os.environ.get("ASKBRIDGE_CONFIG")
    try:
        config, env, what = _load(path)
        print(f"ok    {what}")
        bridge = Bridge.build(config, env)
    except ConfigError as exc:
        for line in str(exc).splitlines():  # every problem at once, one per line
            print(f"FAIL  {line.strip()}")
        return 1
    problems = 0
    for line in placeholders(config):
        problems += 1
        print(f"FAIL  {line}")
    try:
        await bridge.store.open()
        await bridge.store.close()
        print(f"ok    store {'PostgreSQL' if config.store.url else config.store_path}")
    except Exception as exc:
        problems += 1
        print(f"FAIL  store {config.store_path}: {exc}")
    for agent in config.agents:
        print(f"ok    agent {agent.name} ({agent.role}): {', '.join(agent.surfaces)}")
    problems += await _check_adapters(bridge)
    print(tr("en", "All checks passed.") if not problems else
          tr("en", "{n} problem(s) found.", n=problems))
    return 1 if problems else 0
