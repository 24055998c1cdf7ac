"""Web UI auth: token login, signed session cookie, CSRF double-submit and Origin checks."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

SESSION_COOKIE = "askbridge_session"
CSRF_COOKIE = "askbridge_csrf"
CSRF_HEADER = "x-askbridge-csrf"
SESSION_MAX_AGE = 30 * 24 * 3600


def _origin_of(url: str) -> str | None:
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}".lower()


class WebAuth:
    """Stateless sessions: the cookie is `nonce.mac`, so sessions survive restarts and a new
    web token signs everyone out. The token itself is never put in a cookie or a log."""

    def __init__(self, token: str, base_url: str | None = None, public_url: str | None = None) -> None:
        self._token = token.encode()
        self._key = hashlib.sha256(b"askbridge-web-session:" + self._token).digest()
        self._origins = {o for o in [_origin_of(base_url or ""), _origin_of(public_url or "")] if o}

    def token_ok(self, given: str) -> bool:
        return hmac.compare_digest(given.encode(), self._token)

    def _mac(self, purpose: str, nonce: str) -> str:
        return hmac.new(self._key, f"{purpose}:{nonce}".encode(), hashlib.sha256).hexdigest()

    def new_session(self) -> tuple[str, str]:
        """A fresh (session cookie value, CSRF token) pair."""
        nonce = secrets.token_urlsafe(18)
        return f"{nonce}.{self._mac('session', nonce)}", self._mac("csrf", nonce)

    def session(self, conn: HTTPConnection) -> str | None:
        """The session's nonce when the cookie is genuine, else None."""
        nonce, _, mac = conn.cookies.get(SESSION_COOKIE, "").partition(".")
        if not nonce or not hmac.compare_digest(mac.encode(), self._mac("session", nonce).encode()):
            return None
        return nonce

    def csrf_ok(self, conn: HTTPConnection, nonce: str) -> bool:
        given = conn.headers.get(CSRF_HEADER, "")
        return hmac.compare_digest(given.encode(), self._mac("csrf", nonce).encode())

    def allowed_origins(self, conn: HTTPConnection) -> set[str]:
        here = f"{conn.url.scheme}://{conn.headers.get('host', '')}".lower()
        return self._origins | {here}

    def same_origin(self, conn: HTTPConnection, *, required: bool) -> bool:
        """Origin (or Referer) must name this server; `required` refuses requests naming none."""
        if conn.headers.get("sec-fetch-site") == "cross-site":
            return False
        origin = conn.headers.get("origin")
        if origin is None and "referer" in conn.headers:
            origin = _origin_of(conn.headers["referer"])
        if origin is None or origin == "null":
            return not required and origin is None
        return origin.lower() in self.allowed_origins(conn)
