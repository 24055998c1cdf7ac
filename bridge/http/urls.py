"""A URL whose path or query holds a NUL never reaches a route: no id or key can hold one.

PostgreSQL refuses a NUL in any text it is asked to compare, so `GET /v1/questions/q_%00abc`
would be an error from the store instead of the 404 it is on SQLite. The path is decoded
UTF-8 (an undecodable byte is already a replacement character), so a NUL is all there is to
refuse; a query parameter that holds one is a 422 naming it.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Receive, Scope, Send

from bridge.http.responses import error_response


class NulInUrl:
    """ASGI middleware: 404 for a NUL in the path, 422 for one in a query parameter."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            if "\x00" in scope["path"]:
                await error_response(404, "There is no such path; the API is described at "
                                     "/openapi.json.", "path")(scope, receive, send)
                return
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
