"""The adapter contract: the Adapter protocol, its optional capabilities, and how adapters plug in."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from bridge.model.ids import AgentName, MessageRef, QuestionId, SessionKey, SurfaceId, UserRef
from bridge.model.inbound import InboundSink
from bridge.model.prompt import Capabilities, Delivery, Finalization, Prompt, Reminder


class AdapterConfig(Protocol):
    """The configuration as an adapter sees it (`BridgeConfig` is one): its own tables, raw,
    and the surfaces agents ask on. The core never interprets an adapter's table; the adapter's
    own model does."""

    def section(self, name: str) -> Mapping[str, Any] | None:
        """A top-level table an adapter owns (`telegram`, `webhooks`), raw; None when absent."""
        ...

    def agent_surfaces(self) -> list[str]:
        """Every surface some agent lists (`slack:C0123/1700000000.000100`), in config order."""
        ...


class Queries(Protocol):
    """The read side, as an adapter sees it: prompts to re-render and records to show."""

    keep: str
    """How long an ended question is kept before it is deleted: `[store] keep` as configured
    (`90s`, `12h`, `30d`, …, or `forever`)."""

    async def prompt_for(self, question_id: QuestionId,
                         surface: SurfaceId | None = None) -> Prompt | None:
        """The prompt of a still-pending question (for re-rendering), or None when it ended;
        with `surface`, as that surface shows it (native taps, kept selections)."""
        ...

    async def question_view(self, question_id: QuestionId) -> dict[str, Any] | None:
        """The question's record as the HTTP API shows it (`GET /v1/questions/{id}`)."""
        ...

    async def pending_views(self) -> list[dict[str, Any]]:
        """Every pending question's record, oldest first."""
        ...

    async def timeline_view(self, agent: AgentName, session: SessionKey) -> list[dict[str, Any]]:
        """A session's questions, newest first, as records."""
        ...

    async def session_views(self) -> list[dict[str, Any]]:
        """Every agent's sessions: `{agent, session, pending, lastAt}`, newest first."""
        ...

    async def approval_view(self, approval_id: QuestionId) -> dict[str, Any] | None:
        """The approval as `GET /v1/approvals/{id}` shows it; None when the id is a question's
        (or nobody's)."""
        ...

    async def approval_views(self, ids: Sequence[QuestionId]) -> dict[QuestionId, dict[str, Any]]:
        """`approval_view` of each of `ids` that is an approval, read together (a timeline
        page's, in a fixed number of store reads)."""
        ...

    async def rules_view(self) -> list[dict[str, Any]]:
        """Every agent's "Allow for 1 h" rules still in force, as `GET /v1/rules` shows them."""
        ...

    async def card_link(self, question_id: QuestionId, surface: SurfaceId,
                        user: UserRef) -> str | None:
        """A signed link by which `user` on `surface` answers the question (or decides the
        approval, with edit) on a web page, until it ends; None when the bridge serves none.
        Send it only to that user: whoever holds it answers as them."""
        ...


class DeliveryError(Exception):
    """A surface could not show the prompt; the message says why (no secrets)."""


@runtime_checkable
class Adapter(Protocol):
    """One platform. Outbound: deliver and finalize. Inbound: events into the sink.

    Optional protocols add what a platform can do: `Reminding`, `Checkable`,
    `LongConnection`, `Observer`, `Routed`."""

    platform: str
    """The surface prefix this adapter owns (`telegram`, `webhook`, `web`)."""

    def capabilities(self, surface: SurfaceId) -> Capabilities: ...

    async def start(self, sink: InboundSink, queries: Queries) -> None:
        """Connect (polling, gateway, socket) and begin handing inbound events to `sink`;
        `queries` reads what is pending (to re-render a prompt, to show records)."""
        ...

    async def stop(self) -> None: ...

    async def deliver(self, surface: SurfaceId, prompt: Prompt) -> MessageRef | None:
        """Show `prompt` on `surface`; raise `DeliveryError` when it cannot be shown."""
        ...

    async def finalize(self, delivery: Delivery, final: Finalization) -> None:
        """Edit the delivered prompt: drop buttons, add `final.status_line`."""
        ...


@runtime_checkable
class Reminding(Protocol):
    """Optional: adapters that can nudge a person about a delivered, still-pending prompt."""

    async def remind(self, delivery: Delivery, reminder: Reminder) -> MessageRef | None:
        """Post `reminder.text` as a new message, replying to the delivered prompt where the
        platform can; return its reference (so a reply to the reminder binds to the question).
        Raise `DeliveryError` when it cannot be posted."""
        ...


class AdapterState(Protocol):
    """An adapter's own durable key/value state in the store (shared by replicas): a sync
    position, push subscriptions, … Usable once the adapter is started, not in its factory."""

    async def get(self, key: str) -> str | None: ...

    async def put(self, key: str, value: str) -> None: ...

    async def delete(self, key: str) -> bool:
        """True when the key was there."""
        ...

    async def items(self, prefix: str = "") -> list[tuple[str, str]]:
        """Every `(key, value)` whose key starts with `prefix`, ordered by key."""
        ...


class _NoState:
    """For contexts built without a store (unit tests of a factory): nothing is ever kept."""

    async def get(self, key: str) -> str | None:
        return None

    async def put(self, key: str, value: str) -> None:
        raise RuntimeError("this adapter context has no store")

    async def delete(self, key: str) -> bool:
        return False

    async def items(self, prefix: str = "") -> list[tuple[str, str]]:
        return []


@dataclass(frozen=True, slots=True)
class AdapterContext:
    """What an adapter factory gets: the whole config, secrets' environment, the server's URL."""

    config: AdapterConfig
    """The whole config; an adapter reads its own table with `adapter_section(ctx, name, model)`."""
    env: Mapping[str, str]
    base_url: str
    state: Callable[[str], AdapterState] = lambda platform: _NoState()
    """`state(platform)`: the adapter's own durable key/value state (see `AdapterState`)."""


@runtime_checkable
class Checkable(Protocol):
    """Optional: adapters that can verify their credentials for `askbridge doctor`."""

    async def check(self) -> str:
        """Return what was found (`Telegram bot @name`); raise `DeliveryError` saying what is wrong."""
        ...


@runtime_checkable
class Routed(Protocol):
    """Optional: adapters that receive over HTTP (webhooks, HTTP-mode events, the web UI)."""

    def routes(self) -> Sequence[object]:
        """Starlette routes (`Route`, `Mount`) for the server to mount; the core never looks
        inside them, so this contract needs no web framework."""
        ...


@runtime_checkable
class LongConnection(Protocol):
    """Optional: adapters that receive through one long connection (polling, gateway, socket).

    Among replicas only the leader holds it: `connect()` when it takes the lead, `disconnect()`
    when it loses it. `start()` must leave the adapter able to send and finalize without it,
    so every replica can deliver.
    """

    async def connect(self) -> None: ...

    async def disconnect(self) -> None: ...


@runtime_checkable
class Observer(Protocol):
    """Optional: adapters that show live state (the web UI) hear of every question change,
    including changes made by other replicas: `created`, `delivery` or `resolved`."""

    def question_changed(self, event: str, question_id: QuestionId) -> None: ...


@dataclass(frozen=True, slots=True)
class AdapterPlugin:
    """How a platform registers (entry point group `askbridge.adapters` in pyproject.toml)."""

    platform: str
    create: Callable[[AdapterContext], Adapter | None]
    """Build the adapter, or None when its config section is absent."""
    sections: tuple[str, ...] = ()
    """Top-level config tables this adapter owns (`telegram`, `webhooks`)."""
