"""Errors the broker raises to its interfaces; each message tells the caller what to do next."""

from __future__ import annotations


class BridgeError(Exception):
    status = 400
    code = "bad_request"


class Unauthorized(BridgeError):
    status = 401
    code = "unauthorized"


class Forbidden(BridgeError):
    status = 403
    code = "forbidden"


class NotFound(BridgeError):
    status = 404
    code = "not_found"


class Conflict(BridgeError):
    status = 409
    code = "conflict"
