"""A query parameter holding a NUL never reaches a route: it is a 422 naming the parameter.

PostgreSQL refuses a NUL in any text it is asked to compare, so `?session=%00` would be an
error from the store instead of the empty answer it is on SQLite. (A NUL in a path is left to
the route: a session key's pattern refuses it, and no question id holds one.)
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Receive, Scope, Send

from bridge.http.responses import error_response


class NulInQuery:
    """ASGI middleware: 422 for a NUL in a query parameter."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            name = _nul_parameter(scope.get("query_string", b""))
            if name is not None:
                await error_response(422, "This value holds a NUL character (U+0000); remove "
                                     "it.", f"query.{name}")(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _nul_parameter(query: bytes) -> str | None:
    """The first query parameter whose name or value holds a NUL (its name without it)."""
    if b"%00" not in query and b"\x00" not in query:
        return None
    for key, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
        if "\x00" in key or "\x00" in value:
            return key.replace("\x00", "")
    return None
