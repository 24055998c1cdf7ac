"""Web UI auth: token login, signed session cookie, CSRF double-submit and Origin checks."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
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
    """Signed sessions: the cookie is `nonce.issued.mac`, so sessions survive restarts and
    work on every replica; one ends `max_age` seconds after it was issued, when the web token
    changes, or when it was issued before a "sign out everywhere" (`valid_from`, kept in the
    store by adapters.web.sessions). The token itself is never put in a cookie or a log."""

    def __init__(self, token: str, base_url: str | None = None, public_url: str | None = None,
                 max_age: int = SESSION_MAX_AGE) -> None:
        self._token = token.encode()
        self._key = hashlib.sha256(b"askbridge-web-session:" + self._token).digest()
        self._origins = {o for o in [_origin_of(base_url or ""), _origin_of(public_url or "")] if o}
        self.max_age = max_age

    def token_ok(self, given: str) -> bool:
        return hmac.compare_digest(given.encode(), self._token)

    def _mac(self, purpose: str, nonce: str) -> str:
        return hmac.new(self._key, f"{purpose}:{nonce}".encode(), hashlib.sha256).hexdigest()

    def new_session(self, now: float | None = None) -> tuple[str, str]:
        """A fresh (session cookie value, CSRF token) pair, issued `now` (kept in ms)."""
        nonce = secrets.token_urlsafe(18)
        issued = str(int((time.time() if now is None else now) * 1000))
        mac = self._mac("session", f"{nonce}:{issued}")
        return f"{nonce}.{issued}.{mac}", self._mac("csrf", nonce)

    def session(self, conn: HTTPConnection, valid_from: int = 0) -> str | None:
        """The session's nonce when the cookie is genuine, not past its lifetime and issued at
        or after `valid_from` (ms: the last "sign out everywhere"), else None."""
        nonce, issued, mac = [*conn.cookies.get(SESSION_COOKIE, "").split("."), "", ""][:3]
        if not nonce or not issued.isdigit() or not hmac.compare_digest(
                mac.encode(), self._mac("session", f"{nonce}:{issued}").encode()):
            return None
        expired = int(issued) <= (time.time() - self.max_age) * 1000
        return None if expired or int(issued) < valid_from else nonce

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
