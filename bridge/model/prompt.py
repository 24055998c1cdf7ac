"""What the core hands an adapter to show: capabilities, prompts, deliveries, finals, reminders."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from bridge.model.approval import ApprovalRequest
from bridge.model.contract import Question
from bridge.model.ids import AgentName, MessageRef, QuestionId, SessionKey, SurfaceId

FinalKind = Literal["answered", "skipped", "expired", "cancelled", "undelivered"]
ButtonAction = int | Literal["other", "skip"]
"""A button press: the 0-based option index, `other` (ask for free text) or `skip`."""


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
class NativeQuestion:
    """One question of a native prompt: its options as buttons and what is chosen so far."""

    id: str
    header: str
    question: str
    options: tuple[Button, ...]
    """`action` is the option's 0-based index."""
    multi_select: bool
    chosen: tuple[int, ...] = ()
    """Options chosen so far (the stored partial answer), in option order."""
    free_text: bool = False
    """The partial answer is the person's own words (never shown back: it may hold secrets)."""

    @property
    def answered(self) -> bool:
        return bool(self.chosen) or self.free_text


@dataclass(frozen=True, slots=True)
class NativeControls:
    """The words on a native prompt's controls, already in the prompt's locale."""

    done: str
    submit: str
    other: str
    skip: str
    back: str
    next: str
    chosen: str
    """What a question with an own-words answer shows instead of the words: `answered`."""


@dataclass(frozen=True, slots=True)
class ButtonsLayout:
    """One single-select question, answered by one tap: a button per option, then `Other…`
    (own words) and `Skip`."""

    buttons: tuple[Button, ...]
    kind: Literal["buttons"] = "buttons"


@dataclass(frozen=True, slots=True)
class NativePrompt:
    """A multiSelect or several-question prompt, answered by taps: selections go in as
    `SelectionChanged`, `Done`/`Submit` as `SubmitPressed`."""

    questions: tuple[NativeQuestion, ...]
    controls: NativeControls
    kind: Literal["native"] = "native"


@dataclass(frozen=True, slots=True)
class TextLayout:
    """Numbered plain text (`Prompt.text`), answered by a reply: a number, a label, own words."""

    kind: Literal["text"] = "text"


Layout = ButtonsLayout | NativePrompt | TextLayout
"""How a prompt is answered on its surface, decided once by the core from the surface's
capabilities; adapters match on `kind` (or the class) and never re-derive it."""


@dataclass(frozen=True, slots=True)
class Asked:
    """What a prompt is rendered from: the agent's questions, whose they are, and the deadline."""

    question_id: QuestionId
    agent: AgentName
    session: SessionKey
    questions: tuple[Question, ...]
    expires_at: datetime
    approval: ApprovalRequest | None = None
    """Set for an approval's backing question: the prompt shows the action, not a question."""


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
    its last line is `expiry`. `layout` says how it is answered here; for buttons and native
    taps, `title` (header) and `body` (question + option descriptions) go above the controls.
    """

    question_id: QuestionId
    agent: AgentName
    session: SessionKey
    questions: tuple[PromptQuestion, ...]
    expires_at: datetime
    text: str
    title: str
    body: str
    expiry: str
    """`Expires at 14:30 UTC (in 15 min).`, in the prompt's locale: the one expiry line every
    surface shows."""
    layout: Layout = TextLayout()
    locale: str = "en"
    """The language of everything askbridge writes around the agent's words (`en`, `id`)."""
    approval: ApprovalRequest | None = None
    """An approval's prompt (`question_id` is the approval's id): `text` and `body` show the
    action, tool, risk and arguments in full; its one question's options are Approve, Reject
    and Allow for 1 h (taps on them vote; surfaces with modals add Edit and a reason)."""

    @property
    def kind(self) -> str:
        """`approval` for an approval's prompt, else `prompt` (the webhook payload's `kind`)."""
        return "prompt" if self.approval is None else "approval"


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
