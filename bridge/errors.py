"""Errors the broker raises to its interfaces, and the one `{"error", "details"}` body they become."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from starlette.responses import JSONResponse

CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
         405: "method_not_allowed", 409: "conflict", 413: "payload_too_large",
         422: "invalid_request", 503: "unavailable"}


def error_body(code: str, details: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """`{"error": code, "details": [{"loc", "msg"}, …]}`: every error askbridge answers has it."""
    return {"error": code, "details": [{"loc": str(d["loc"]), "msg": str(d["msg"])}
                                       for d in details]}


def error_response(status: int, msg: str = "", loc: str = "body", *, code: str | None = None,
                   headers: Mapping[str, str] | None = None,
                   details: Iterable[Mapping[str, Any]] | None = None) -> JSONResponse:
    """The error response: one problem (`msg` at `loc`), or several `details` for a 422."""
    body = error_body(code or CODES.get(status, "error"),
                      [{"loc": loc, "msg": msg}] if details is None else details)
    return JSONResponse(body, status_code=status, headers=dict(headers or {}))


class BridgeError(Exception):
    """A refusal with its HTTP status; `loc` names what was wrong (`header`, `path`, `body`…)."""

    status = 400
    code = "bad_request"
    loc = "body"
    headers: ClassVar[Mapping[str, str]] = {}

    def __init__(self, msg: str, loc: str | None = None) -> None:
        super().__init__(msg)
        if loc is not None:
            self.loc = loc

    def response(self) -> JSONResponse:
        return error_response(self.status, str(self), self.loc, code=self.code,
                              headers=self.headers)


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
