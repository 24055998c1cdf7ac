"""Signed links to one question's answer page: whoever holds `{base}/l/{token}` may answer that
question as the one person on the one surface the link was made for, until the question ends.

A link is a capability, like a password: it is made only for a person a surface has already
told apart (a Telegram user who pressed Edit, an MCP host that can open a URL), sent only to
them, and it answers nothing else. The token carries the question, the surface and the user in
the clear (base64url JSON) and an HMAC over them with a key the replicas share (kept in the
store), so any replica can check it and nothing has to be stored per link. It needs no expiry
of its own: the page refuses once the question has ended.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass

from bridge.model.ids import QuestionId, SurfaceId, UserRef
from bridge.store.protocol import Store

LINK_PATH = "/l/"
"""Where the answer page is served: `{base url}/l/{token}`."""
MAC_BYTES = 16
"""128 bits: the token is a bearer credential for one question."""


@dataclass(frozen=True, slots=True)
class LinkHolder:
    """What a checked token names: the question, and who answers through it, from where."""

    question_id: QuestionId
    surface: SurfaceId
    user: UserRef


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class CardLinks:
    """Makes and checks the tokens of answer-page links, with one key per deployment."""

    def __init__(self, store: Store, base_url: str) -> None:
        self.store = store
        self.base_url = base_url.rstrip("/")
        self._key: bytes | None = None

    async def _secret(self) -> bytes:
        if self._key is None:
            # The first replica to need a key writes it; every other reads the same one.
            kept = await self.store.state_put_new("links", "key", secrets.token_urlsafe(32))
            self._key = kept.encode()
        return self._key

    def _mac(self, key: bytes, payload: str) -> bytes:
        return hmac.new(key, b"askbridge-link\0" + payload.encode(), hashlib.sha256).digest()[
            :MAC_BYTES]

    async def token(self, question_id: QuestionId, surface: SurfaceId, user: UserRef) -> str:
        payload = _b64(json.dumps([question_id, surface, user], separators=(",", ":"),
                                  ensure_ascii=False).encode())
        return f"{payload}.{_b64(self._mac(await self._secret(), payload))}"

    async def url(self, question_id: QuestionId, surface: SurfaceId, user: UserRef) -> str:
        """The link for `user` on `surface` to answer `question_id` on the web."""
        return f"{self.base_url}{LINK_PATH}{await self.token(question_id, surface, user)}"

    async def check(self, token: str) -> LinkHolder | None:
        """Who the token was made for, or None when it is not one of ours (forged, cut short,
        or made with another deployment's key). The MAC is compared in constant time."""
        payload, dot, mac = token.partition(".")
        if not dot or len(token) > 2048:
            return None
        try:
            given = _unb64(mac)
            expected = self._mac(await self._secret(), payload)
            if not hmac.compare_digest(given, expected):
                return None
            fields = json.loads(_unb64(payload))
        except (binascii.Error, ValueError, UnicodeDecodeError):
            return None
        if not (isinstance(fields, list) and len(fields) == 3
                and all(isinstance(f, str) and f for f in fields)):
            return None
        return LinkHolder(QuestionId(fields[0]), SurfaceId(fields[1]), UserRef(fields[2]))
