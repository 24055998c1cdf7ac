"""The composition root: config → store, adapters, broker, HTTP app; started and stopped as one."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import structlog

from bridge.core.adapter_reads import AdapterReads
from bridge.core.answering import Answering
from bridge.core.approvals import Approvals
from bridge.core.broker import Broker
from bridge.core.card_links import CardLinks
from bridge.core.emitter import Emitter
from bridge.core.event_hooks import EventHooks, Hook
from bridge.core.leader import Leader
from bridge.core.native_taps import NativeTaps
from bridge.core.open_questions import OpenQuestions
from bridge.core.outbound import Outbound, Timeouts
from bridge.core.reach import Reach
from bridge.core.receiver import Receiver
from bridge.core.retention import Retention
from bridge.core.surfaces import Surfaces
from bridge.core.tasks import Tasks
from bridge.model.adapter import Adapter, AdapterContext, AdapterPlugin, LongConnection, Observer
from bridge.model.ids import surface_platform
from bridge.runtime.config import AgentConfig, BridgeConfig, ConfigError
from bridge.runtime.config_problems import unknown_key
from bridge.runtime.durations import keep_seconds
from bridge.runtime.people import ApprovalPolicy, People, PersonConfig
from bridge.runtime.plugins import discover
from bridge.store import Store, open_store

log = structlog.get_logger("askbridge.app")


def make_store(config: BridgeConfig) -> Store:
    return open_store(None if config.store.url else config.store_path, config.store.url)


@dataclass(frozen=True, slots=True)
class StoredState:
    """One adapter's `AdapterState`, kept in the store's `adapter_state` table."""

    store: Store
    platform: str

    async def get(self, key: str) -> str | None:
        return await self.store.state_get(self.platform, key)

    async def put(self, key: str, value: str) -> None:
        await self.store.state_put(self.platform, key, value)

    async def delete(self, key: str) -> bool:
        return await self.store.state_delete(self.platform, key)

    async def items(self, prefix: str = "") -> list[tuple[str, str]]:
        return await self.store.state_items(self.platform, prefix)


def make_adapters(
    config: BridgeConfig, env: Mapping[str, str], plugins: Sequence[AdapterPlugin],
    store: Store | None = None,
) -> dict[str, Adapter]:
    """Build every configured adapter; reject config tables no adapter owns."""
    owned = {section for p in plugins for section in p.sections}
    unknown = [s for s in config.extra_sections() if s not in owned]
    if unknown:
        known = sorted(owned | set(BridgeConfig.model_fields))
        raise ConfigError("\n".join(f"[{name}]: {unknown_key(name, known)}" for name in unknown))
    ctx = AdapterContext(config=config, env=env, base_url=config.base_url)
    if store is not None:
        ctx = AdapterContext(config, env, config.base_url,
                             state=lambda platform: StoredState(store, platform))
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
        keys = [("surfaces", s) for s in agent.surfaces] + [
            (f"escalation[{n}].surfaces", s) for n, tier in enumerate(agent.escalation)
            for s in tier.surfaces]
        for key, surface in keys:
            if surface_platform(surface) not in adapters:
                raise ConfigError(
                    f"Agent {agent.name!r} lists {surface!r} in {key}, but no "
                    f"{surface_platform(surface)} adapter is configured; add its section or "
                    "remove the surface."
                )
    return adapters


def make_hooks(config: BridgeConfig, env: Mapping[str, str], store: Store) -> EventHooks | None:
    """The `[[events]]` hooks, each with its secret from the environment; None without any."""
    if not config.events:
        return None
    missing = sorted({h.secret_env for h in config.events if not env.get(h.secret_env)})
    if missing:
        raise ConfigError(
            f"[[events]] read their signing secrets from ${', $'.join(missing)}, not set; "
            "export each (any long random string the receiver also knows) and start again.")
    return EventHooks(store, [Hook(h, env[h.secret_env]) for h in config.events])


@dataclass(frozen=True, slots=True)
class Core:
    """The life of a question, wired: the broker, the sink adapters hand events to, and the
    read side adapters and the API show records from."""

    broker: Broker
    receiver: Receiver
    reads: AdapterReads
    emitter: Emitter
    approvals: Approvals


def compose(store: Store, adapters: Mapping[str, Adapter], agents: Sequence[AgentConfig],
            timeouts: Timeouts | None = None, keep: str = "30d",
            people: Sequence[PersonConfig] = (),
            policies: Sequence[ApprovalPolicy] = (),
            base_url: str = "http://127.0.0.1:8765") -> Core:
    """Build every collaborator once and hand each only what it calls: no object reaches
    through another to a third."""
    surfaces = Surfaces(adapters, {a.name: a for a in agents})
    open_questions = OpenQuestions(store)
    tasks, emitter = Tasks(), Emitter()
    broker: Broker
    outbound = Outbound(store, surfaces, open_questions, tasks.spawn, emitter.emit,
                        undelivered=lambda question_id: broker.undelivered(question_id),
                        timeouts=timeouts or Timeouts())
    reach = Reach(store, surfaces, open_questions, outbound, tasks.spawn, emitter.emit)
    broker = Broker(store, surfaces, open_questions, outbound, reach, tasks, emitter)
    reads = AdapterReads(store, surfaces, keep)
    reads.links = CardLinks(store, base_url)
    approvals = Approvals(store, broker, People(people), policies)
    broker.ended.append(approvals.ended)
    emitter.observers.append(approvals.observed)
    answering = Answering(store, open_questions, surfaces, broker.resolve, approvals.vote,
                          approvals.approver)
    receiver = Receiver(answering, NativeTaps(answering, reads), reach.in_flight,
                        approvals.revoke_in_force)
    return Core(broker, receiver, reads, emitter, approvals)


@dataclass
class Bridge:
    """Everything one `askbridge serve` process runs."""

    config: BridgeConfig
    env: Mapping[str, str]
    store: Store
    broker: Broker
    receiver: Receiver
    reads: AdapterReads
    emitter: Emitter
    approvals: Approvals
    adapters: dict[str, Adapter] = field(default_factory=dict)
    started: bool = False
    leader: Leader | None = None
    hooks: EventHooks | None = None
    retention: Retention | None = None

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
        key_env = config.mcp.state_key_env
        if key_env and len(env.get(key_env, "")) < 32:
            problems.append(
                f"[mcp] state_key_env names ${key_env}, which is not set or shorter than 32 "
                "characters; export the same long random secret on every replica, or remove the "
                "key to keep one in the store.")
        store = make_store(config)
        adapters: dict[str, Adapter] = {}
        hooks: EventHooks | None = None
        try:
            adapters = make_adapters(config, env, discover() if plugins is None else plugins, store)
            hooks = make_hooks(config, env, store)
        except ConfigError as exc:
            problems.append(str(exc))
        if problems:
            raise ConfigError("\n".join(problems))
        core = compose(store, adapters, config.agents, keep=config.store.keep,
                       people=config.people, policies=config.approvals,
                       base_url=config.base_url)
        if hooks is not None:
            core.emitter.listeners.append(hooks.changed)
        return cls(config, env, store, core.broker, core.receiver, core.reads, core.emitter,
                   core.approvals, adapters, hooks=hooks)

    async def start(self) -> None:
        """Start everything once (a second call, as the app's lifespan makes, does nothing).

        A `ConfigError` (a platform refused its credential) stops whatever had started and
        leaves the store closed, so the process can exit with that one sentence."""
        if self.started:
            return
        await self.store.open()
        try:
            await self._start_parts()
        except BaseException:
            self.started = True
            await self.stop()
            raise

    async def _start_parts(self) -> None:
        # Adapters first: the broker's recovery re-sends and finalizes through them at once.
        for name, adapter in self.adapters.items():
            await adapter.start(self.receiver, self.reads)
            if isinstance(adapter, Observer):
                self.emitter.observers.append(adapter.question_changed)
            log.info("adapter_started", platform=name)
        await self.broker.start()
        if self.hooks is not None:
            await self.hooks.start()
        self.leader = Leader(self.store, [(n, a) for n, a in self.adapters.items()
                                          if isinstance(a, LongConnection)])
        await self.leader.start()
        self.retention = Retention(self.store, self.config.store.keep_seconds,
                                   audit_keep=keep_seconds(self.config.store.audit_keep))
        await self.retention.start()
        self.started = True

    async def stop(self) -> None:
        if not self.started:
            return
        self.started = False
        if self.retention is not None:
            await self.retention.stop()
        if self.leader is not None:
            await self.leader.stop()
        for name, adapter in self.adapters.items():
            try:
                await asyncio.wait_for(adapter.stop(), 10)
            except Exception as exc:
                log.warning("adapter_stop_failed", platform=name, error=type(exc).__name__)
        await self.broker.stop()
        if self.hooks is not None:
            await self.hooks.stop()
        await self.store.close()
