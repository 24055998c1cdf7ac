"""Discord clicks, modal submits and messages as core events (pure)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, ValidationError

from adapters.discord.ids import CUSTOM_ID_PREFIX, MODAL_ACTION, message_ref, surface_for
from adapters.discord.native import OWN_WORDS_INPUT
from adapters.discord.render import ANSWER_INPUT
from bridge import (
    ButtonAction,
    ButtonPressed,
    InboundEvent,
    QuestionId,
    SelectionChanged,
    SubmitPressed,
    TextReceived,
    UserRef,
)

_QUESTION_ID = re.compile(r"^q_[a-z0-9]{1,64}$")
Action = ButtonAction | Literal["modal", "select", "done", "own_words", "own_modal"]
_ACTIONS: dict[str, Action] = {"o": "other", "s": "skip", MODAL_ACTION: "modal", "d": "done",
                               "w": "own_words", "n": "own_modal"}
_SELECT = re.compile(r"^v(\d)$")


class _Payload(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ComponentData(_Payload):
    """`data` of a component interaction (type 3)."""

    custom_id: str
    component_type: int = 2
    values: list[str] = []
    """A select menu's chosen option values (ours are option indices)."""


class TextInputValue(_Payload):
    type: int
    custom_id: str | None = None
    value: str | None = None
    components: list[TextInputValue] = []
    component: TextInputValue | None = None
    """A Label (type 18) wraps its input in `component`; an action row lists `components`."""


class ModalData(_Payload):
    """`data` of a modal submit (type 5)."""

    custom_id: str
    components: list[TextInputValue] = []


@dataclass(frozen=True, slots=True)
class Tap:
    """A click (or modal submit) on one of our components, decoded from its custom id."""

    question_id: QuestionId
    action: Action
    step: int = 0
    """Which question a select menu belongs to (native prompts)."""


def parse_custom_id(custom_id: str) -> Tap | None:
    """`ab:<question_id>:<index|o|s|m>` → Tap; None for components that are not ours."""
    prefix, _, rest = custom_id.partition(":")
    question_id, _, code = rest.rpartition(":")
    if prefix != CUSTOM_ID_PREFIX or not _QUESTION_ID.match(question_id):
        return None
    if code.isdigit() and len(code) <= 2:
        return Tap(QuestionId(question_id), int(code))
    select = _SELECT.match(code)
    if select:
        return Tap(QuestionId(question_id), "select", int(select.group(1)))
    action = _ACTIONS.get(code)
    return Tap(QuestionId(question_id), action) if action is not None else None


def component_tap(data: Any) -> Tap | None:
    try:
        return parse_custom_id(ComponentData.model_validate(data).custom_id)
    except ValidationError:
        return None


def select_values(data: Any) -> tuple[int, ...] | None:
    """A select menu's chosen option indices; None when a value is not one of ours."""
    try:
        values = ComponentData.model_validate(data).values
    except ValidationError:
        return None
    if not all(v.isdigit() and len(v) <= 2 for v in values):
        return None
    return tuple(int(v) for v in values)


def own_words(data: Any) -> tuple[Tap, dict[int, str]] | None:
    """The own-words modal: the question it answers and the text per question number."""
    ours = _our_modal(data, "own_modal")
    if ours is None:
        return None
    tap, inputs = ours
    texts: dict[int, str] = {}
    for item in inputs:
        number = (item.custom_id or "").removeprefix(OWN_WORDS_INPUT)
        if item.custom_id != number and number.isdigit() and (item.value or "").strip():
            texts[int(number)] = (item.value or "").strip()
    return tap, texts


def _our_modal(data: Any, action: Action) -> tuple[Tap, list[TextInputValue]] | None:
    """A submit of our modal of this kind, with every input in it (rows, labels); else None."""
    try:
        modal = ModalData.model_validate(data)
    except ValidationError:
        return None
    tap = parse_custom_id(modal.custom_id)
    if tap is None or tap.action != action:
        return None
    return tap, _inputs(modal.components)


def _inputs(items: list[TextInputValue]) -> list[TextInputValue]:
    found: list[TextInputValue] = []
    for item in items:
        found.append(item)
        found += _inputs(item.components)
        if item.component is not None:
            found += _inputs([item.component])
    return found


def modal_submit(data: Any) -> tuple[Tap, str] | None:
    """The question a modal answers and the text typed in it; None when it is not ours."""
    ours = _our_modal(data, "modal")
    if ours is None:
        return None
    tap, inputs = ours
    texts = [i.value for i in inputs
             if i.custom_id == ANSWER_INPUT and i.value is not None]
    return (tap, texts[0]) if texts else None


def may_answer(user_id: int | str, in_dm: bool, answerers: tuple[str, ...]) -> bool:
    """The configured answerers anywhere; in a DM the DM's own user as well."""
    return in_dm or str(user_id) in answerers


def without_mention(content: str, bot_id: int | None) -> str:
    """`<@123> 2` → `2`: a message that pings the bot to answer carries the mention."""
    if bot_id is None:
        return content.strip()
    return re.sub(rf"<@!?{bot_id}>", "", content).strip()


def message_event(channel_id: int, user_id: int, content: str, authorized: bool,
                  replied_to: int | None) -> TextReceived:
    """A message; a Discord reply to a prompt carries that prompt's reference."""
    reply_to = message_ref(channel_id, replied_to) if replied_to is not None else None
    return TextReceived(surface=surface_for(channel_id), user=UserRef(str(user_id)),
                        text=content, authorized=authorized, reply_to=reply_to)


@dataclass(frozen=True, slots=True)
class Interaction:
    """What the adapter hands over of a discord.py interaction on our components or modals."""

    kind: Literal["component", "modal"]
    channel_id: int
    user_id: int
    data: Any
    authorized: bool




def event_from(raw: Interaction) -> InboundEvent | None:
    """A click, a selection or a modal's text as the core event it is; None when it is not ours
    (or is the own-words modal, whose numbers only the prompt can turn into question ids)."""
    return _FROM[raw.kind](raw)


def _component_event(raw: Interaction) -> InboundEvent | None:
    tap = component_tap(raw.data)
    if tap is None:
        return None
    kind = "button" if tap.action in ("other", "skip") or isinstance(tap.action, int) \
        else str(tap.action)
    make = _TAPS.get(kind)
    return make(raw, tap) if make is not None else None


def _modal_event(raw: Interaction) -> InboundEvent | None:
    submitted = modal_submit(raw.data)
    if submitted is None:
        return None
    tap, text = submitted  # free text from `Other…`: bound to its question by id
    return TextReceived(surface_for(raw.channel_id), UserRef(str(raw.user_id)), text,
                        raw.authorized, reply_to=tap.question_id)


def _selection(raw: Interaction, tap: Tap) -> InboundEvent | None:
    chosen = select_values(raw.data)
    if chosen is None:
        return None
    return SelectionChanged(surface_for(raw.channel_id), UserRef(str(raw.user_id)),
                            tap.question_id, tap.step, chosen, raw.authorized)


def _pressed(action: ButtonAction | None) -> Callable[[Interaction, Tap], InboundEvent]:
    def make(raw: Interaction, tap: Tap) -> InboundEvent:
        pressed = action if action is not None else cast(ButtonAction, tap.action)
        return ButtonPressed(surface_for(raw.channel_id), UserRef(str(raw.user_id)),
                             tap.question_id, pressed, raw.authorized)
    return make


_TAPS: dict[str, Callable[[Interaction, Tap], InboundEvent | None]] = {
    "button": _pressed(None),
    "own_words": _pressed("other"),  # a native prompt's Other…: the modal per question
    "select": _selection,
    "done": lambda raw, tap: SubmitPressed(surface_for(raw.channel_id),
                                           UserRef(str(raw.user_id)), tap.question_id,
                                           raw.authorized),
}
_FROM: dict[str, Callable[[Interaction], InboundEvent | None]] = {
    "component": _component_event, "modal": _modal_event}
