"""The adapter contract: typed ids, capabilities, prompts, inbound events and the Adapter protocol."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, NewType, Protocol, runtime_checkable

from starlette.routing import BaseRoute

if TYPE_CHECKING:  # bridge.native builds on these ids; the names below are for annotations
    from bridge.native import NativePrompt, SelectionChanged, SubmitPressed
    from bridge.sections import AdapterConfig

QuestionId = NewType("QuestionId", str)
AgentName = NewType("AgentName", str)
SessionKey = NewType("SessionKey", str)
SurfaceId = NewType("SurfaceId", str)
"""`web`, `telegram:<chat>`, `discord:<channel>`, `slack:<channel>`, `webhook:<name>:<conversation>`."""
UserRef = NewType("UserRef", str)
"""A platform user id as a string (`123456789`, `U0123`, a phone number)."""
MessageRef = NewType("MessageRef", str)
"""What an adapter needs to edit a delivered message later (a message id, `channel/ts`, …)."""

FinalKind = Literal["answered", "skipped", "expired", "cancelled", "undelivered"]
ButtonAction = int | Literal["other", "skip"]
"""A button press: the 0-based option index, `other` (ask for free text) or `skip`."""


def surface_platform(surface: SurfaceId | str) -> str:
    """The platform prefix of a surface id: `telegram` for `telegram:42`."""
    return surface.split(":", 1)[0]


def surface_target(surface: SurfaceId | str) -> str:
    """Everything after the platform prefix: `42` for `telegram:42`, `` for `web`."""
    _, _, rest = surface.partition(":")
    return rest


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a surface can do; the broker picks fallbacks from these, adapters never stub."""

    buttons: bool = False
    edits: bool = False
    modals: bool = False
    reply_to: bool = False
    max_len: int = 4000
    locale: str | None = None
    """The language this surface's own config asks for (`[telegram] locale`, a webhook
    channel's); None follows the agent's. The broker writes the surface's prompts,
    status lines and replies in it."""
    native_multi: bool = False
    """A multiSelect question can be answered by taps (toggles, a select menu, checkboxes)."""
    native_several: bool = False
    """Several questions can be answered by taps in one message (`native = "all"`)."""


@dataclass(frozen=True, slots=True)
class Button:
    """One native button: its caption and what pressing it means."""

    label: str
    action: ButtonAction
    primary: bool = False


@dataclass(frozen=True, slots=True)
class PromptQuestion:
    """One question as an adapter needs it to render."""

    id: str
    header: str
    question: str
    options: tuple[tuple[str, str | None], ...]
    multi_select: bool


@dataclass(frozen=True, slots=True)
class Prompt:
    """A question ready to deliver.

    `text` is the neutral numbered plain text (always present; text surfaces send it as is);
    its last line says when it expires.
    `buttons` is set only when the prompt may be shown with native buttons on this surface;
    then `title` (header) and `body` (question + option descriptions) are what goes above them.
    """

    question_id: QuestionId
    agent: AgentName
    session: SessionKey
    questions: tuple[PromptQuestion, ...]
    expires_at: datetime
    text: str
    title: str
    body: str
    buttons: tuple[Button, ...] | None = None
    locale: str = "en"
    """The language of everything askbridge writes around the agent's words (`en`, `id`)."""
    native: NativePrompt | None = None
    """Set (instead of `buttons`) when a multiSelect or several-question prompt is to be
    answered by taps on this surface; None means buttons for one question, or numbered text."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """A prompt that reached a surface, with the reference needed to edit it."""

    question_id: QuestionId
    surface: SurfaceId
    message_ref: MessageRef | None


@dataclass(frozen=True, slots=True)
class Finalization:
    """How a delivered prompt must look once its question ended."""

    kind: FinalKind
    status_line: str
    """`Answered: Staging`, `Answered`, `Skipped`, `Expired`, `Cancelled` — never free text."""
    prompt: Prompt
    answered_on: SurfaceId | None = None
    """The surface whose answer won, so others can say "Answered elsewhere"."""


@dataclass(frozen=True, slots=True)
class Reminder:
    """A short nudge about a still-pending prompt, posted as a new message (never an edit)."""

    prompt: Prompt
    text: str
    """`Reminder: Deploy — still waiting for your answer; expires in 12 min`, in the prompt's locale."""
    number: int
    """1 for the first reminder of this question, 2 for the second, …"""


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """A person pressed a native button on a delivered prompt."""

    surface: SurfaceId
    user: UserRef
    question_id: QuestionId
    action: ButtonAction
    authorized: bool
    """Whether this person may answer on this surface (the adapter knows its answerers)."""


@dataclass(frozen=True, slots=True)
class TextReceived:
    """A person wrote text in a conversation where prompts are delivered."""

    surface: SurfaceId
    user: UserRef
    text: str
    authorized: bool
    reply_to: str | None = None
    """A platform message reference or a question id the text replies to, if the platform says."""


@dataclass(frozen=True, slots=True)
class AnswerSubmitted:
    """Structured answers from a surface with a form (the web UI): labels or free text per id."""

    surface: SurfaceId
    user: UserRef
    question_id: QuestionId
    answers: dict[str, list[str]] | None
    """None means Skip."""
    authorized: bool = True
    locale: str | None = None
    """The language the person chose on this surface (the web UI's switch); None follows
    the surface's."""
    partial: bool = False
    """Some questions only (a native `Other…` per question): kept with the earlier answers;
    the question ends once every question has an answer."""


@dataclass(frozen=True, slots=True)
class InboundReply:
    """What the broker tells the adapter to show the person (alert, ephemeral, reply text).

    `handled` is False when the event had nothing to do with any question (leave it alone).
    `accepted` is True when it was taken as (part of) an answer or a skip.
    """

    handled: bool
    accepted: bool = False
    text: str | None = None
    question_id: QuestionId | None = None
    ended: bool = False
    locale: str = "en"
    """The language `text` is in; adapters write their own follow-ups (modals, hints) in it."""
    prompt: Prompt | None = None
    """The prompt as it now stands on the surface (selections shown), to edit it in place."""


class InboundSink(Protocol):
    """The broker's side of the contract, as an adapter sees it."""

    async def button_pressed(self, event: ButtonPressed) -> InboundReply: ...

    async def text_received(self, event: TextReceived) -> InboundReply: ...

    async def answers_submitted(self, event: AnswerSubmitted) -> InboundReply: ...

    async def selection_changed(self, event: SelectionChanged) -> InboundReply: ...

    async def submit_pressed(self, event: SubmitPressed) -> InboundReply: ...

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


class DeliveryError(Exception):
    """A surface could not show the prompt; the message says why (no secrets)."""


@runtime_checkable
class Adapter(Protocol):
    """One platform. Outbound: deliver and finalize. Inbound: events into the sink."""

    platform: str
    """The surface prefix this adapter owns (`telegram`, `webhook`, `web`)."""

    def capabilities(self, surface: SurfaceId) -> Capabilities: ...

    def routes(self) -> Sequence[BaseRoute]:
        """HTTP routes to mount on the server (webhooks, HTTP-mode events); may be empty."""
        ...

    async def start(self, sink: InboundSink) -> None:
        """Connect (polling, gateway, socket) and begin handing inbound events to `sink`."""
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
