"""Discord clicks, modal submits and messages as core events (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from adapters.discord.render import ANSWER_INPUT, CUSTOM_ID_PREFIX, MODAL_ACTION, message_ref
from bridge import (
    ButtonAction,
    ButtonPressed,
    QuestionId,
    SurfaceId,
    TextReceived,
    UserRef,
)

_QUESTION_ID = re.compile(r"^q_[a-z0-9]{1,64}$")
_ACTIONS: dict[str, ButtonAction | Literal["modal"]] = {"o": "other", "s": "skip",
                                                        MODAL_ACTION: "modal"}


class _Payload(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ComponentData(_Payload):
    """`data` of a component interaction (type 3)."""

    custom_id: str
    component_type: int = 2


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
    action: ButtonAction | Literal["modal"]


def parse_custom_id(custom_id: str) -> Tap | None:
    """`ab:<question_id>:<index|o|s|m>` → Tap; None for components that are not ours."""
    prefix, _, rest = custom_id.partition(":")
    question_id, _, code = rest.rpartition(":")
    if prefix != CUSTOM_ID_PREFIX or not _QUESTION_ID.match(question_id):
        return None
    if code.isdigit() and len(code) <= 2:
        return Tap(QuestionId(question_id), int(code))
    action = _ACTIONS.get(code)
    return Tap(QuestionId(question_id), action) if action is not None else None


def component_tap(data: Any) -> Tap | None:
    try:
        return parse_custom_id(ComponentData.model_validate(data).custom_id)
    except ValidationError:
        return None


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
    try:
        modal = ModalData.model_validate(data)
    except ValidationError:
        return None
    tap = parse_custom_id(modal.custom_id)
    if tap is None or tap.action != "modal":
        return None
    texts = [i.value for i in _inputs(modal.components)
             if i.custom_id == ANSWER_INPUT and i.value is not None]
    return (tap, texts[0]) if texts else None


def surface_for(channel_id: int | str) -> SurfaceId:
    return SurfaceId(f"discord:{channel_id}")


def may_answer(user_id: int | str, in_dm: bool, answerers: tuple[str, ...]) -> bool:
    """The configured answerers anywhere; in a DM the DM's own user as well."""
    return in_dm or str(user_id) in answerers


def tap_event(channel_id: int, user_id: int, question_id: QuestionId, action: ButtonAction,
              authorized: bool) -> ButtonPressed:
    return ButtonPressed(surface=surface_for(channel_id), user=UserRef(str(user_id)),
                         question_id=question_id, action=action, authorized=authorized)


def modal_event(channel_id: int, user_id: int, tap: Tap, text: str,
                authorized: bool) -> TextReceived:
    """Free text from `Other…`: bound to its question by id."""
    return TextReceived(surface=surface_for(channel_id), user=UserRef(str(user_id)), text=text,
                        authorized=authorized, reply_to=tap.question_id)


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
