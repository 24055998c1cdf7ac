"""`askbridge doctor`: validate a config, open the store, and check each platform's credentials."""

from __future__ import annotations

import argparse
import asyncio
import os

from bridge.app import Bridge
from bridge.config import ConfigError, default_env, embedded_defaults, load_config
from bridge.types import Checkable, DeliveryError


async def run_doctor(args: argparse.Namespace) -> int:
    path = args.config or os.environ.get("ASKBRIDGE_CONFIG")
    problems = 0
    try:
        if path:
            config, env = load_config(path), dict(os.environ)
            print(f"ok    config {path}")
        else:
            config = embedded_defaults()
            env, _ = default_env(config.data_dir, dict(os.environ))
            print("ok    embedded defaults (no config file)")
        bridge = Bridge.build(config, env)
    except ConfigError as exc:
        print(f"FAIL  {exc}")
        return 1
    try:
        await bridge.store.open()
        await bridge.store.close()
        print(f"ok    store {config.store_path}")
    except Exception as exc:
        problems += 1
        print(f"FAIL  store {config.store_path}: {exc}")
    for agent in config.agents:
        print(f"ok    agent {agent.name} ({agent.role}): {', '.join(agent.surfaces)}")
    for name, adapter in bridge.adapters.items():
        if not isinstance(adapter, Checkable):
            print(f"ok    {name}: configured")
            continue
        try:
            found = await asyncio.wait_for(adapter.check(), 20)
            print(f"ok    {name}: {found}")
        except (DeliveryError, TimeoutError, OSError) as exc:
            problems += 1
            print(f"FAIL  {name}: {exc or 'no answer in 20 s'}")
    print("All checks passed." if not problems else f"{problems} problem(s) found.")
    return 1 if problems else 0
