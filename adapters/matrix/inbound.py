"""Matrix timeline events (raw JSON) as what they mean to askbridge: text, a poll vote, or nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from adapters.matrix.render import ASKS, MARK, POLL_INDEX, POLL_RESPONSES, SHOWN
from bridge import QuestionId

_TEXT_TYPES = {"m.text", "m.emote"}
ENCRYPTED = "m.room.encrypted"


class Said(BaseModel):
    """A person's text message (maybe a reply to one of our events)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    room_id: str
    sender: str
    event_id: str
    text: str
    reply_to: str | None = None


class Vote(BaseModel):
    """A poll response: the chosen answer ids of one of our polls (empty = vote withdrawn)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    room_id: str
    sender: str
    event_id: str
    poll_id: str
    answers: tuple[str, ...]


class Sealed(BaseModel):
    """An end-to-end encrypted event: askbridge cannot read it (it does not encrypt)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    room_id: str
    sender: str
    event_id: str


class Mark(BaseModel):
    """What our own event says about itself: its question, and which poll it is."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    question_id: QuestionId
    index: int | None = None
    asks: str | None = None
    """What a plain reply to this notice is (`reason`: a rejection's reason)."""
    shown: str | None = None
    """An approval's: the payload hash of the arguments the event showed."""


def strip_reply_fallback(body: str) -> str:
    """Drop the `> <@who> quoted` lines older clients put before the text of a reply."""
    lines = body.split("\n")
    if not lines or not lines[0].startswith(">"):
        return body
    while lines and lines[0].startswith(">"):
        lines.pop(0)
    return "\n".join(lines).strip()


def _said(room_id: str, raw: dict[str, Any], content: dict[str, Any]) -> Said | None:
    relates = content.get("m.relates_to") or {}
    if content.get("msgtype") not in _TEXT_TYPES or relates.get("rel_type") == "m.replace":
        return None  # notices are bots talking; edits are not new answers
    reply = (relates.get("m.in_reply_to") or {}).get("event_id")
    body = content.get("body")
    if not isinstance(body, str):
        return None
    text = strip_reply_fallback(body) if reply else body
    return Said(room_id=room_id, sender=raw["sender"], event_id=raw["event_id"], text=text,
                reply_to=reply if isinstance(reply, str) else None)


def _vote(room_id: str, raw: dict[str, Any], content: dict[str, Any]) -> Vote | None:
    relates = content.get("m.relates_to") or {}
    if relates.get("rel_type") != "m.reference":
        return None
    block = content.get(raw["type"]) or {}
    answers = block.get("answers") if raw["type"] != "m.poll.response" else content.get(
        "m.selections")
    if not isinstance(answers, list):
        return None
    return Vote(room_id=room_id, sender=raw["sender"], event_id=raw["event_id"],
                poll_id=relates.get("event_id"),
                answers=tuple(a for a in answers if isinstance(a, str)))


def event_from(room_id: str, raw: dict[str, Any], me: str) -> Said | Vote | Sealed | None:
    """A timeline event as text, a vote or a sealed (encrypted) event; our own and all else → None.

    What it means to a question (a reply's question, a poll's question and option) takes a
    lookup of our own event it points at: the syncer does that."""
    make = _FROM.get(str(raw.get("type")))
    if make is None or raw.get("sender") == me or not isinstance(raw.get("content"), dict):
        return None
    try:
        return make(room_id, raw, raw["content"])
    except (KeyError, ValidationError):
        return None  # malformed events from odd clients are not ours to answer


def _sealed(room_id: str, raw: dict[str, Any], _: dict[str, Any]) -> Sealed:
    return Sealed(room_id=room_id, sender=raw["sender"], event_id=raw["event_id"])


_FROM: dict[str, Callable[[str, dict[str, Any], dict[str, Any]], Said | Vote | Sealed | None]] = {
    "m.room.message": _said, ENCRYPTED: _sealed, **dict.fromkeys(POLL_RESPONSES, _vote)}


def mark_of(raw: dict[str, Any], me: str) -> Mark | None:
    """The mark on one of *our* events (prompt, poll, reminder, notice); None on anyone else's."""
    content = raw.get("content")
    if raw.get("sender") != me or not isinstance(content, dict) or MARK not in content:
        return None
    try:
        return Mark(question_id=content[MARK], index=content.get(POLL_INDEX),
                    asks=content.get(ASKS), shown=content.get(SHOWN))
    except ValidationError:
        return None


def chosen(answers: tuple[str, ...], options: int) -> list[int] | None:
    """Answer ids (`1`..`n`) as 0-based option indices; None when any is not one of ours."""
    picked: list[int] = []
    for answer in answers:
        if not answer.isdigit() or not 1 <= int(answer) <= options:
            return None
        if int(answer) - 1 not in picked:
            picked.append(int(answer) - 1)
    return sorted(picked)


def invited_by(invite_state: list[dict[str, Any]], me: str) -> str | None:
    """Who invited us, from an invite's stripped state."""
    for raw in invite_state:
        content = raw.get("content") or {}
        if (raw.get("type") == "m.room.member" and raw.get("state_key") == me
                and content.get("membership") == "invite"):
            sender = raw.get("sender")
            return sender if isinstance(sender, str) else None
    return None
