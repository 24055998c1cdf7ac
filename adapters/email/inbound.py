"""A raw reply as what the broker needs (pure): who sent it, its tokens, whether a machine wrote
it, and the person's own words — then `event_from` makes the core's `TextReceived`.

Parsing uses the standard library's `email` package (policy=default). Hostile or broken input
never raises from here: a part that cannot be decoded is read as UTF-8 with replacements, and a
message that cannot be read at all has `text=None`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from email import errors, policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import getaddresses
from typing import TypeVar

import structlog

from adapters.email.config import plain_address
from adapters.email.htmltext import html_text
from adapters.email.ids import shown_in
from adapters.email.quotes import own_words
from bridge import QuestionId, SurfaceId, TextReceived, UserRef

log = structlog.get_logger("askbridge.email")
RECIPIENT_HEADERS = ("To", "Cc", "Delivered-To", "X-Original-To", "Envelope-To")
AUTOMATIC_PRECEDENCE = frozenset({"bulk", "auto_reply", "junk", "list"})
MAX_TEXT = 8000
_MSG_IDS = re.compile(r"<[^<>\s]+>")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Mail:
    sender: str
    """The From's address (lowercase), never its display name; empty when not exactly one."""
    tokens: tuple[str, ...]
    message_id: str | None
    subject: str
    automatic: bool
    text: str | None
    """The person's own words (quotes and signature stripped); None when unreadable."""
    shown: str | None = None
    """The payload hash start of the approval message it replies to (`In-Reply-To`, else the
    last of `References`), when that is one of ours about an approval."""


def token_pattern(reply_to: str) -> re.Pattern[str]:
    """`ask+{token}@example.org` → a pattern whose group `token` is the token."""
    before, _, after = reply_to.partition("{token}")
    return re.compile(f"^{re.escape(before)}(?P<token>[^@\\s]+){re.escape(after)}$",
                      re.IGNORECASE)


def read_mail(raw: bytes, tokens: re.Pattern[str], words: bool = True) -> Mail:
    """`words=False` leaves `text` None: finding a person's words costs time (see
    `quotes.LONG_LINE`), so it is spent only on mail that may answer (`read_words`)."""
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    return Mail(sender=_header_safe(lambda: _sender(msg), ""),
                tokens=_header_safe(lambda: _tokens(msg, tokens), ()),
                message_id=_header_safe(lambda: " ".join(str(msg.get("Message-ID", "")).split())[:300]
                                        or None, None),
                subject=_header_safe(lambda: str(msg.get("Subject", "")), ""),
                automatic=_header_safe(lambda: is_automatic(msg), True),
                text=_text(msg) if words else None,
                shown=_header_safe(lambda: _replied_shown(msg), None))


def read_words(raw: bytes) -> str | None:
    """The person's own words in `raw` (`Mail.text`)."""
    return _text(BytesParser(policy=policy.default).parsebytes(raw))


def _replied_shown(msg: Message) -> str | None:
    """What the message this one replies to showed: `In-Reply-To` names it, or, from clients
    that leave that out, the last `References` entry."""
    replied = (_MSG_IDS.findall(str(msg.get("In-Reply-To", "")))
               or _MSG_IDS.findall(str(msg.get("References", ""))))
    return shown_in(replied[-1]) if replied else None


def _header_safe(read: Callable[[], T], fallback: T) -> T:
    try:
        return read()
    except Exception:  # the email package has many ways to fail on hostile headers
        return fallback


def _sender(msg: Message) -> str:
    """Nobody for a From that is not one valid mailbox: `ana@example.org <m@evil.example>` reads
    as ana here, but as evil.example to a server checking the From's domain (DMARC)."""
    fields = msg.get_all("From", [])
    if len(fields) != 1 or any(isinstance(d, errors.InvalidHeaderDefect)
                               for d in getattr(fields[0], "defects", ())):
        return ""
    addresses = [a for _, a in getaddresses([str(fields[0])]) if a]
    return plain_address(addresses[0]) if len(addresses) == 1 else ""


def _tokens(msg: Message, pattern: re.Pattern[str]) -> tuple[str, ...]:
    values = [str(v) for h in RECIPIENT_HEADERS for v in msg.get_all(h, [])]
    found = (pattern.match(address.strip()) for _, address in getaddresses(values))
    return tuple(dict.fromkeys(m.group("token").lower() for m in found if m))


def is_automatic(msg: Message) -> bool:
    """Vacation replies, bounces and list mail (RFC 3834 and the headers clients really send)."""
    auto = str(msg.get("Auto-Submitted", "no")).strip().lower()
    precedence = str(msg.get("Precedence", "")).strip().lower()
    return (auto != "no" or precedence in AUTOMATIC_PRECEDENCE
            or any(h in msg for h in ("X-Autoreply", "X-Autorespond", "X-Autoresponder"))
            or msg.get_content_type() == "multipart/report"
            or str(msg.get("Return-Path", "")).strip() == "<>")


def _text(msg: EmailMessage) -> str | None:
    try:
        part = msg.get_body(preferencelist=("plain", "html"))
    except Exception:  # broken MIME structure: nothing readable
        return None
    if part is None:
        return None
    # NUL and lone surrogates are in no one's words, and no store takes them
    content = _decoded(part).replace("\x00", "").encode("utf-8", "replace").decode("utf-8")
    if part.get_content_subtype() == "html":
        content = html_text(content)
    return own_words(content)[:MAX_TEXT]


def _decoded(part: Message) -> str:
    """The part as text; an unknown or wrong charset is read as UTF-8 with replacements."""
    try:
        return str(part.get_content())  # type: ignore[attr-defined]
    except (LookupError, UnicodeError, AssertionError, ValueError):
        payload = part.get_payload(decode=True)
        return payload.decode("utf-8", errors="replace") if isinstance(payload, bytes) else ""


def event_from(mail: Mail, surface: SurfaceId, question_id: QuestionId,
               authorized: bool) -> TextReceived:
    """The one kind of event e-mail has: a text, bound to the question its token names."""
    return TextReceived(surface=surface, user=UserRef(mail.sender), text=mail.text or "",
                        authorized=authorized, reply_to=question_id, shown_hash=mail.shown)
