"""Slack payloads (block_actions, view_submission, message events) as core events (pure)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, ValidationError

from adapters.slack import native
from adapters.slack.ids import message_ref, parse_action_id, surface_for, target_of
from adapters.slack.mrkdwn import unescape
from adapters.slack.render import OTHER_BLOCK, OTHER_INPUT
from bridge import (
    ButtonPressed,
    InboundEvent,
    QuestionId,
    SelectionChanged,
    SubmitPressed,
    SurfaceId,
    TextReceived,
    UserRef,
    parse_json,
)


class _Payload(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class SlackUser(_Payload):
    id: str


class SlackChannel(_Payload):
    id: str


class SlackMessage(_Payload):
    ts: str
    thread_ts: str | None = None


class SlackAction(_Payload):
    action_id: str


class BlockActions(_Payload):
    user: SlackUser
    channel: SlackChannel | None = None
    message: SlackMessage | None = None
    trigger_id: str | None = None
    actions: list[SlackAction]


class InputValue(_Payload):
    value: str | None = None


class ViewState(_Payload):
    values: dict[str, dict[str, InputValue]] = {}


class View(_Payload):
    callback_id: str = ""
    private_metadata: str = ""
    state: ViewState = ViewState()


class ViewSubmission(_Payload):
    user: SlackUser
    view: View


class MessageEvent(_Payload):
    channel: str
    user: str | None = None
    text: str | None = None
    ts: str
    thread_ts: str | None = None
    subtype: str | None = None
    bot_id: str | None = None


def may_answer(user: str, channel: str, answerers: Collection[str]) -> bool:
    """Listed answerers anywhere; in a DM (`D…`) the DM's own user too."""
    return user in answerers or channel.startswith("D")


@dataclass(frozen=True, slots=True)
class Click:
    """A button press and where it happened (to answer ephemerally or open a modal)."""

    event: ButtonPressed
    channel: str
    message_ts: str | None
    thread_ts: str | None
    trigger_id: str | None


def click_from(body: dict[str, object], answerers: Collection[str]) -> Click | None:
    """The first of our buttons in a block_actions body; None when it is not ours."""
    try:
        payload = BlockActions.model_validate(body)
    except ValidationError:
        return None
    parsed = next((p for a in payload.actions if (p := parse_action_id(a.action_id))), None)
    if parsed is None or payload.channel is None:
        return None
    question_id, action = parsed
    channel = payload.channel.id
    thread = payload.message.thread_ts if payload.message else None
    surface = surface_for(channel, thread)
    user = payload.user.id
    return Click(
        event=ButtonPressed(surface, UserRef(user), question_id, action,
                            may_answer(user, channel, answerers)),
        channel=channel,
        message_ts=payload.message.ts if payload.message else None,
        thread_ts=thread,
        trigger_id=payload.trigger_id,
    )


def modal_text(body: dict[str, object], answerers: Collection[str]) -> TextReceived | None:
    """The `Other…` modal's text, bound to its question by id; None when malformed."""
    try:
        payload = ViewSubmission.model_validate(body)
        meta = parse_json(payload.view.private_metadata)
        question_id, surface = QuestionId(str(meta["q"])), SurfaceId(str(meta["s"]))
    except (ValidationError, ValueError, KeyError, TypeError):
        return None
    value = payload.view.state.values.get(OTHER_BLOCK, {}).get(OTHER_INPUT)
    text = (value.value or "").strip() if value else ""
    if not text:
        return None
    channel, _ = target_of(surface)
    user = payload.user.id
    return TextReceived(surface, UserRef(user), text, may_answer(user, channel, answerers),
                        reply_to=question_id)


def text_from(event: dict[str, object], answerers: Collection[str],
              thread_surfaces: Collection[str]) -> TextReceived | None:
    """A person's message as TextReceived; None for bots, edits, and people who may not answer.

    A reply in the thread of a prompt carries that prompt's MessageRef (`<channel>/<ts>`);
    a message inside a thread that is itself a configured surface belongs to that surface.
    """
    try:
        message = MessageEvent.model_validate(event)
    except ValidationError:
        return None
    if message.subtype or message.bot_id or not message.user or not (message.text or "").strip():
        return None
    if not may_answer(message.user, message.channel, answerers):
        return None
    surface, reply_to = surface_for(message.channel), None
    thread = message.thread_ts if message.thread_ts != message.ts else None
    if thread:
        in_thread = surface_for(message.channel, thread)
        if in_thread in thread_surfaces:
            surface = in_thread
        else:
            reply_to = message_ref(message.channel, thread)
    text = unescape((message.text or "").strip())
    return TextReceived(surface, UserRef(message.user), text, True,
                        reply_to=reply_to)


Answerers = Collection[str]


def event_from(raw: dict[str, object], answerers: Answerers,
               thread_surfaces: Collection[str] = ()) -> InboundEvent | None:
    """A block_actions or view_submission body, or a message event, as the core event it is;
    None when it is not ours (or is the own-words modal, whose numbers only the prompt can
    turn into question ids)."""
    make = _FROM.get(str(raw.get("type")))
    return make(raw, answerers, thread_surfaces) if make is not None else None


def _action_event(raw: dict[str, object], answerers: Answerers, _: object) -> InboundEvent | None:
    actions = raw.get("actions")
    found = [p for a in actions if (p := native.parse_action(a))] if isinstance(actions, list) \
        else []
    if not found:
        click = click_from(raw, answerers)
        return click.event if click is not None else None
    try:
        payload = BlockActions.model_validate(raw)
    except ValidationError:
        return None
    if payload.channel is None:
        return None
    action, channel, user = found[0], payload.channel.id, payload.user.id
    thread = payload.message.thread_ts if payload.message else None
    who = (surface_for(channel, thread), UserRef(user))
    return _NATIVE[action.kind](who, action, may_answer(user, channel, answerers))


Who = tuple[SurfaceId, UserRef]
_NATIVE: dict[str, Callable[[Who, native.NativeAction, bool], InboundEvent]] = {
    "select": lambda who, a, ok: SelectionChanged(*who, a.question_id, a.step, a.options, ok),
    "done": lambda who, a, ok: SubmitPressed(*who, a.question_id, ok),
    "own_words": lambda who, a, ok: ButtonPressed(*who, a.question_id, "other", ok),
}
_FROM: dict[str, Callable[[dict[str, object], Answerers, Collection[str]], InboundEvent | None]] = {
    "block_actions": _action_event,
    "view_submission": lambda raw, answerers, _: modal_text(raw, answerers),
    "message": text_from,
}


_SHAPES: dict[str, tuple[type, ...]] = {
    "event": (dict,), "view": (dict,), "user": (dict, str), "channel": (dict, str),
    "team": (dict, str, type(None)), "enterprise": (dict, str, type(None)),
    "container": (dict,), "message": (dict,), "actions": (list,), "authorizations": (list,),
    "type": (str,),
}


def _shaped(data: object) -> bool:
    if not isinstance(data, dict):
        return False
    if any(k in data and not isinstance(data[k], t) for k, t in _SHAPES.items()):
        return False
    event = data.get("event")
    return not isinstance(event, dict) or all(
        not isinstance(event.get(k), dict | list) for k in ("user", "channel", "bot_id", "type"))


def well_formed(body: bytes, content_type: str | None) -> bool:
    """Whether slack-bolt can take the body: a JSON object, or a form whose `payload` is one,
    with the fields bolt reads typed as Slack sends them (bolt raises on anything else, and a
    signed but malformed request would be a 500)."""
    from urllib.parse import parse_qs

    try:
        text = body.decode()
        if (content_type or "").startswith("application/json") or text.startswith("{"):
            return _shaped(parse_json(text))
        payload = parse_qs(text).get("payload")
        return payload is None or _shaped(parse_json(payload[0]))
    except ValueError:  # BadJson (too deep, not JSON) is one too
        return False
