"""Errors the broker raises to its interfaces, and the one `{"error", "details"}` body they become.

No web framework here: `bridge.http.responses` turns them into responses."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
         405: "method_not_allowed", 409: "conflict", 413: "payload_too_large",
         415: "unsupported_media_type", 422: "invalid_request", 503: "unavailable"}


def error_body(code: str, details: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """`{"error": code, "details": [{"loc", "msg"}, …]}`: every error askbridge answers has it."""
    return {"error": code, "details": [{"loc": str(d["loc"]), "msg": str(d["msg"])}
                                       for d in details]}


NOT_AUTHORIZED = ("The agent token is missing or not known: send the agent's token as "
                  "`Authorization: Bearer <token>`.")
"""The one wording of a 401, on /v1 and /mcp alike (`askbridge mcp` adds where its token is from)."""


class BridgeError(Exception):
    """A refusal with its HTTP status; `loc` names what was wrong (`header`, `path`, `body`…)."""

    status = 400
    code = "bad_request"
    loc = "body"
    headers: ClassVar[Mapping[str, str]] = {}
    extra: Mapping[str, Any] = {}
    """Fields the response body carries beside `error` and `details` (a 409's `pendingId`)."""

    def __init__(self, msg: str, loc: str | None = None) -> None:
        super().__init__(msg)
        if loc is not None:
            self.loc = loc


class Unauthorized(BridgeError):
    status = 401
    code = "unauthorized"
    loc = "header"
    headers: ClassVar[Mapping[str, str]] = {"WWW-Authenticate": "Bearer"}


class Forbidden(BridgeError):
    status = 403
    code = "forbidden"
    loc = "agent"


class NotFound(BridgeError):
    status = 404
    code = "not_found"
    loc = "path"


class Conflict(BridgeError):
    status = 409
    code = "conflict"
    loc = "session"

    def __init__(self, msg: str, pending_id: str | None = None) -> None:
        super().__init__(msg)
        if pending_id is not None:
            self.extra = {"pendingId": pending_id}


class UnsupportedMedia(BridgeError):
    """A body declared as something other than JSON (a form, plain text)."""

    status = 415
    code = "unsupported_media_type"
    loc = "header"
