"""Per-delivery tokens: the reply address's and each link's, HMAC-bound to question and surface.

A token is `<question id>-<mac>` (reply) or `<question id>.<action>[.<shown>].<mac>` (link), all
lowercase so it survives mail systems that fold the case of addresses. The MAC covers the
question, the surface the prompt went to and, for a link, the action and, on an approval's
prompt, the start of the payload hash it showed (a decision is for the arguments it was shown);
nothing else is needed to check it later (the question's record lists its surfaces), so tokens
live only in the messages sent.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Callable, Iterable

from bridge import ButtonAction, QuestionId, SurfaceId

MAC_CHARS = 20
"""100 bits of base32."""
REPLY = re.compile(r"^(q_[a-z0-9]{16})-([a-z2-7]{20})$")
LINK = re.compile(r"^(q_[a-z0-9]{16})\.(\d{1,2}|s)(?:\.([0-9a-f]{12}))?\.([a-z2-7]{20})$")
SHOWN_CHARS = 12
"""Hex characters of the payload hash an approval's link carries (as Telegram's buttons do)."""


def _mac(key: bytes, *parts: str) -> str:
    digest = hmac.new(key, "\0".join(parts).encode(), hashlib.sha256).digest()
    return base64.b32encode(digest).decode().lower()[:MAC_CHARS]


def _action_code(action: ButtonAction) -> str:
    return "s" if action == "skip" else str(action)


class Tokens:
    """Makes and checks tokens with one key (kept in the store, shared by replicas)."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def reply(self, question_id: QuestionId, surface: SurfaceId) -> str:
        return f"{question_id}-{_mac(self._key, 'reply', question_id, surface)}"

    def link(self, question_id: QuestionId, surface: SurfaceId, action: ButtonAction,
             shown: str | None = None) -> str:
        """`shown`: the payload hash an approval's prompt showed (its start is kept)."""
        code = _action_code(action)
        bound = (code, shown[:SHOWN_CHARS].lower()) if shown else (code,)
        return f"{question_id}.{'.'.join(bound)}.{_mac(self._key, 'link', question_id, surface, *bound)}"

    def reply_surface(self, token: str, surfaces: Iterable[str]) -> SurfaceId | None:
        """Which of the question's `surfaces` the reply token was made for, or None."""
        found = REPLY.match(token.lower())
        if found is None:
            return None
        qid, mac = found.groups()
        return _matching(mac, surfaces, lambda s: _mac(self._key, "reply", qid, s))

    def link_surface(self, token: str, surfaces: Iterable[str]) -> SurfaceId | None:
        found = LINK.match(token.lower())
        if found is None:
            return None
        qid, code, shown, mac = found.groups()
        bound = (code, shown) if shown else (code,)
        return _matching(mac, surfaces, lambda s: _mac(self._key, "link", qid, s, *bound))


def question_of(token: str) -> QuestionId | None:
    """The question a well-formed token names (not yet checked: look up its surfaces, then check)."""
    found = REPLY.match(token.lower()) or LINK.match(token.lower())
    return QuestionId(found.group(1)) if found else None


def action_of(token: str) -> ButtonAction | None:
    found = LINK.match(token.lower())
    if found is None:
        return None
    code = found.group(2)
    return "skip" if code == "s" else int(code)


def shown_of(token: str) -> str | None:
    """The payload hash start an approval's link carries (checked with `link_surface`)."""
    found = LINK.match(token.lower())
    return found.group(3) if found else None


def _matching(mac: str, surfaces: Iterable[str],
              expected: Callable[[str], str]) -> SurfaceId | None:
    found: SurfaceId | None = None
    for surface in surfaces:  # every candidate compared in constant time
        want = expected(surface)
        if hmac.compare_digest(want.encode(), mac.encode()) and surface.startswith("email:"):
            found = SurfaceId(surface)
    return found
