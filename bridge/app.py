"""The composition root: config → store, adapters, broker, HTTP app; started and stopped as one."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import structlog

from bridge.broker import Broker
from bridge.config import BridgeConfig, ConfigError, unknown_key
from bridge.inbox import Inbox
from bridge.leader import Leader
from bridge.plugins import discover
from bridge.store import Store, open_store
from bridge.types import (
    Adapter,
    AdapterContext,
    AdapterPlugin,
    LongConnection,
    Observer,
    surface_platform,
)

log = structlog.get_logger("askbridge.app")


def make_store(config: BridgeConfig) -> Store:
    return open_store(None if config.store.url else config.store_path, config.store.url)


def make_adapters(
    config: BridgeConfig, env: Mapping[str, str], plugins: Sequence[AdapterPlugin]
) -> dict[str, Adapter]:
    """Build every configured adapter; reject config tables no adapter owns."""
    owned = {section for p in plugins for section in p.sections}
    unknown = [s for s in config.extra_sections() if s not in owned]
    if unknown:
        known = sorted(owned | set(BridgeConfig.model_fields))
        raise ConfigError("\n".join(f"[{name}]: {unknown_key(name, known)}" for name in unknown))
    ctx = AdapterContext(config=config, env=env, base_url=config.base_url)
    adapters: dict[str, Adapter] = {}
    problems: list[str] = []
    for plugin in plugins:  # every adapter's problems at once, not one per run
        try:
            adapter = plugin.create(ctx)
        except ConfigError as exc:
            problems.append(str(exc))
            continue
        if adapter is not None:
            adapters[plugin.platform] = adapter
    if problems:
        raise ConfigError("\n".join(problems))
    for agent in config.agents:
        for surface in agent.surfaces:
            if surface_platform(surface) not in adapters:
                raise ConfigError(
                    f"Agent {agent.name!r} lists surface {surface!r}, but no "
                    f"{surface_platform(surface)} adapter is configured; add its section or "
                    "remove the surface."
                )
    return adapters


@dataclass
class Bridge:
    """Everything one `askbridge serve` process runs."""

    config: BridgeConfig
    env: Mapping[str, str]
    store: Store
    broker: Broker
    inbox: Inbox
    adapters: dict[str, Adapter] = field(default_factory=dict)
    started: bool = False
    leader: Leader | None = None

    @classmethod
    def build(
        cls,
        config: BridgeConfig,
        env: Mapping[str, str],
        plugins: Sequence[AdapterPlugin] | None = None,
    ) -> Bridge:
        if not config.agents:
            raise ConfigError("Add at least one [[agents]] entry (name, token_env, role, surfaces).")
        problems = [
            f"Agent {agent.name!r} reads its token from ${agent.token_env}, which is not set; "
            "export it (any long random string) and start again."
            for agent in config.agents if not env.get(agent.token_env)]
        try:
            adapters = make_adapters(config, env, discover() if plugins is None else plugins)
        except ConfigError as exc:
            problems.append(str(exc))
        if problems:
            raise ConfigError("\n".join(problems))
        store = make_store(config)
        broker = Broker(store, adapters, {a.name: a for a in config.agents})
        return cls(config, env, store, broker, Inbox(broker), adapters)

    async def start(self) -> None:
        await self.store.open()
        # Adapters first: the broker's recovery re-sends and finalizes through them at once.
        for name, adapter in self.adapters.items():
            await adapter.start(self.inbox)
            if isinstance(adapter, Observer):
                self.broker.observers.append(adapter.question_changed)
            log.info("adapter_started", platform=name)
        await self.broker.start()
        self.leader = Leader(self.store, [(n, a) for n, a in self.adapters.items()
                                          if isinstance(a, LongConnection)])
        await self.leader.start()
        self.started = True

    async def stop(self) -> None:
        if not self.started:
            return
        self.started = False
        if self.leader is not None:
            await self.leader.stop()
        for name, adapter in self.adapters.items():
            try:
                await asyncio.wait_for(adapter.stop(), 10)
            except Exception as exc:
                log.warning("adapter_stop_failed", platform=name, error=type(exc).__name__)
        await self.broker.stop()
        await self.store.close()
