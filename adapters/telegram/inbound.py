"""Telegram updates (taps, texts) as core events: who, where, what, and whether they may answer."""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict
from telegram import MaybeInaccessibleMessage, Update

from adapters.telegram.ids import Callback, CallbackKind, parse_callback, surface_for
from bridge import (
    ButtonPressed,
    InboundEvent,
    SelectionChanged,
    StepChanged,
    SubmitPressed,
    SurfaceId,
    TextReceived,
    UserRef,
)

_BOT_COMMAND = re.compile(r"^(/\w+)@\w+")
PRIVATE = "private"


class Where(BaseModel):
    """A conversation (and forum topic) in Telegram terms."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    chat_id: int
    chat_type: str
    thread_id: int | None = None

    @property
    def surface(self) -> SurfaceId:
        return surface_for(self.chat_id, self.thread_id)


class Tap(BaseModel):
    """A callback query from an inline button."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    query_id: str
    user_id: int
    where: Where | None
    message_id: int | None
    callback: Callback | None
    """The button's callback data, parsed; None when it is not one of ours."""


class Said(BaseModel):
    """A text message (a reply to a prompt or force-reply request, or just text)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    where: Where
    user_id: int
    user_is_bot: bool
    message_id: int
    text: str
    reply_to_message_id: int | None = None
    reply_to_bot: bool = False


def _where(message: MaybeInaccessibleMessage) -> Where:
    topic = bool(getattr(message, "is_topic_message", False))
    thread = getattr(message, "message_thread_id", None) if topic else None
    return Where(chat_id=message.chat.id, chat_type=message.chat.type, thread_id=thread)


def tap_from(update: Update, callback: Callback | None = None) -> Tap | None:
    """The press an update carries; its data parsed here unless the caller has it already."""
    query = update.callback_query
    if query is None or query.data is None:
        return None
    where = _where(query.message) if query.message else None
    return Tap(query_id=query.id, user_id=query.from_user.id, where=where,
               message_id=query.message.message_id if query.message else None,
               callback=callback or parse_callback(query.data))


def said_from(update: Update) -> Said | None:
    message = update.message
    if message is None or message.text is None or message.from_user is None:
        return None
    where = _where(message)
    replied = message.reply_to_message
    return Said(
        where=where, user_id=message.from_user.id, user_is_bot=message.from_user.is_bot,
        message_id=message.message_id, text=message.text,
        reply_to_message_id=replied.message_id if replied else None,
        reply_to_bot=bool(replied and replied.from_user and replied.from_user.is_bot),
    )


def may_answer(where: Where | None, user_id: int, answerers: list[int]) -> bool:
    """The private chat's own user, or someone listed in `answerers`."""
    if user_id in answerers:
        return True
    return where is not None and where.chat_type == PRIVATE and where.chat_id == user_id


def tap_event(tap: Tap, callback: Callback, answerers: list[int]) -> InboundEvent | None:
    """A press on one of our buttons as the core event it is; None for a press from where no
    answer can come (an inaccessible message)."""
    if tap.where is None:
        return None
    who = (tap.where.surface, UserRef(str(tap.user_id)))
    return _TAPS[callback.kind](who, callback, may_answer(tap.where, tap.user_id, answerers))


def text_event(said: Said, answerers: list[int], reply_to: str | None) -> TextReceived | None:
    """The text as the broker's parser should see it; None when it is to be ignored."""
    if said.user_is_bot:
        return None
    authorized = may_answer(said.where, said.user_id, answerers)
    if not authorized and said.where.chat_type != PRIVATE:
        return None  # others chatting in a group are none of our business
    text = _BOT_COMMAND.sub(r"\1", said.text.strip())
    return TextReceived(surface=said.where.surface, user=UserRef(str(said.user_id)), text=text,
                        authorized=authorized, reply_to=reply_to)




def event_from(update: Update, answerers: list[int], reply_to: str | None = None) -> InboundEvent | None:
    """A tap or a text as the core event it is; None for anything else. `reply_to` is what a
    replied-to message is bound to."""
    kind = next((k for k in _FROM if getattr(update, k) is not None), None)
    return _FROM[kind](update, answerers, reply_to) if kind else None


def _tap_event(update: Update, answerers: list[int], _: str | None) -> InboundEvent | None:
    tap = tap_from(update)
    if tap is None or tap.callback is None:
        return None
    return tap_event(tap, tap.callback, answerers)


def _text_event(update: Update, answerers: list[int], reply_to: str | None) -> InboundEvent | None:
    said = said_from(update)
    return text_event(said, answerers, reply_to) if said is not None else None


Who = tuple[SurfaceId, UserRef]
_TAPS: dict[CallbackKind, Callable[[Who, Callback, bool], InboundEvent | None]] = {
    "option": lambda who, c, ok: ButtonPressed(*who, c.question_id, c.action, ok),
    "other": lambda who, c, ok: ButtonPressed(*who, c.question_id, "other", ok),
    "skip": lambda who, c, ok: ButtonPressed(*who, c.question_id, "skip", ok),
    "own": lambda who, c, ok: ButtonPressed(*who, c.question_id, "other", ok),
    "toggle": lambda who, c, ok: SelectionChanged(*who, c.question_id, c.step, (c.option,), ok,
                                                  toggle=True),
    "done": lambda who, c, ok: SubmitPressed(*who, c.question_id, ok),
    "go": lambda who, c, ok: StepChanged(*who, c.question_id, c.step, ok),
}
_FROM: dict[str, Callable[[Update, list[int], str | None], InboundEvent | None]] = {
    "callback_query": _tap_event, "message": _text_event}
