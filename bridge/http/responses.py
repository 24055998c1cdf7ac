"""The one error response: `{"error", "details"}` with its status, for every HTTP route."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from starlette.responses import JSONResponse

from bridge.model.errors import CODES, BridgeError, error_body


def error_response(status: int, msg: str = "", loc: str = "body", *, code: str | None = None,
                   headers: Mapping[str, str] | None = None,
                   details: Iterable[Mapping[str, Any]] | None = None) -> JSONResponse:
    """The error response: one problem (`msg` at `loc`), or several `details` for a 422."""
    body = error_body(code or CODES.get(status, "error"),
                      [{"loc": loc, "msg": msg}] if details is None else details)
    return JSONResponse(body, status_code=status, headers=dict(headers or {}))


def refusal(exc: BridgeError) -> JSONResponse:
    """A broker's refusal (`NotFound`, `Conflict`, …) as its response."""
    response = error_response(exc.status, str(exc), exc.loc, code=exc.code, headers=exc.headers)
    if exc.extra:
        response = JSONResponse({**error_body(exc.code, [{"loc": exc.loc, "msg": str(exc)}]),
                                 **exc.extra}, status_code=exc.status, headers=dict(exc.headers))
    return response
