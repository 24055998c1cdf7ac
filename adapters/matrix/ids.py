"""Matrix surfaces and message references: `matrix:<room_id>`, `<room>|<text event>|<poll,…>`."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from bridge import MessageRef, SurfaceId, surface_target

ROOM_ID = re.compile(r"^![^\s|,]+$")
"""`!opaque:server`, or `!hash` alone since room version 12."""


def surface_for(room_id: str) -> SurfaceId:
    return SurfaceId(f"matrix:{room_id}")


def room_of(surface: SurfaceId | str) -> str:
    """The room id of `matrix:!abc:example`; ValueError when it is not a room id."""
    room = surface_target(surface)
    if not ROOM_ID.match(room):
        raise ValueError(room)
    return room


@dataclass(frozen=True, slots=True)
class Sent:
    """Where a delivered prompt lives: its room, its text message and its polls (one per question)."""

    room_id: str
    text_id: str
    poll_ids: tuple[str, ...] = ()


def message_ref(sent: Sent) -> MessageRef:
    # `|` and `,` appear in neither room ids (checked above) nor event ids (base64url or legacy ids)
    return MessageRef(f"{sent.room_id}|{sent.text_id}|{','.join(sent.poll_ids)}")


def parse_ref(ref: str) -> Sent:
    room, text, polls = ref.split("|", 2)
    return Sent(room, text, tuple(p for p in polls.split(",") if p))


def txn(question_id: str, room_id: str, part: str, shown: str | None = None) -> str:
    """A transaction id per (question, room, part): a send retried (a timeout, a resend after a
    restart) is deduplicated by the homeserver instead of posted twice. Some servers scope ids
    per device rather than per room, hence the room's digest. An approval's events also name
    the payload they show (`shown`): once an edit changes the arguments, the prompt shown again
    and its later edits are new events, not the old ones the homeserver would hand back."""
    room = hashlib.sha256(room_id.encode()).hexdigest()[:10]
    payload = f".{shown[:16]}" if shown else ""
    return f"askbridge.{question_id}.{room}.{part}{payload}"
