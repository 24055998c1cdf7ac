"""Web sessions end everywhere at once: "sign out everywhere" is a time kept in the store, which
every replica reads before it trusts a session cookie (a cookie issued earlier is refused)."""

from __future__ import annotations

import time

import structlog
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response

from adapters.web.security import CSRF_COOKIE, SESSION_COOKIE, WebAuth
from bridge import AdapterState

log = structlog.get_logger("askbridge.web")
VALID_FROM = "sessions:valid_from"
"""Store key: sessions issued before this time (ms) are signed out."""
END_PATH = "/ui/api/sessions/end"


class Sessions:
    """Which session cookies hold: signed, within `[web] session_days`, not signed out."""

    def __init__(self, auth: WebAuth, state: AdapterState) -> None:
        self.auth = auth
        self.state = state

    async def nonce(self, conn: HTTPConnection, started: bool = True) -> str | None:
        """The session's nonce, or None. Before the adapter starts the store cannot be read:
        only the signature and the lifetime are checked (every API route waits for the start)."""
        raw = await self.state.get(VALID_FROM) if started else None
        return self.auth.session(conn, int(raw) if raw and raw.isdigit() else 0)

    async def end_everywhere(self, request: Request) -> Response:
        """Sign every browser out, on every replica; this one too."""
        await self.state.put(VALID_FROM, str(int(time.time() * 1000)))
        log.info("web_signed_out_everywhere")
        response = JSONResponse({"signedOut": True})
        for cookie in (SESSION_COOKIE, CSRF_COOKIE):
            response.delete_cookie(cookie, path="/")
        return response
