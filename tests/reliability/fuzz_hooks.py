"""Schemathesis hooks for the fuzz run (SCHEMATHESIS_HOOKS): credentials, signed channel
replies, and long-polls kept short so the run stays within its budget."""

from __future__ import annotations

import json
import os
from typing import Any

import schemathesis
from schemathesis import Case
from schemathesis.core import NotSet

from bridge.runtime.security import SIGNATURE_HEADER, sign

TOKEN = os.environ.get("FUZZ_AGENT_TOKEN", "")
SECRET = os.environ.get("FUZZ_WEBHOOK_SECRET", "")
MAX_WAIT = 0.5
"""`?wait=` long-polls for up to an hour; the fuzzer has a minute for everything."""


def _is_channel(case: Case[Any]) -> bool:
    return str(case.operation.path).startswith("/v1/channels/webhook/")


def _wire_body(body: Any) -> bytes:
    """The bytes the requests transport sends for a JSON body (json.dumps, allow_nan=False)."""
    if isinstance(body, bytes):
        return body
    if isinstance(body, NotSet):
        return b""
    if body is None:
        return b"null"
    return json.dumps(body, allow_nan=False).encode()


@schemathesis.auth()
class AgentOrChannel:
    """The agent's bearer token on the agents' API; the channel's HMAC on channel replies."""

    def get(self, case: Case[Any], ctx: Any) -> str:
        return TOKEN

    def set(self, case: Case[Any], data: str, ctx: Any) -> None:
        if _is_channel(case):
            case.headers[SIGNATURE_HEADER] = sign(SECRET, _wire_body(case.body))
        else:
            case.headers["Authorization"] = f"Bearer {data}"


@schemathesis.hook
def before_call(context: Any, case: Case[Any], kwargs: dict[str, Any]) -> None:
    wait = (case.query or {}).get("wait")
    if isinstance(wait, int | float) and not isinstance(wait, bool) and wait > MAX_WAIT:
        case.query["wait"] = MAX_WAIT
    if _is_channel(case) and SIGNATURE_HEADER in (case.headers or {}):
        case.headers[SIGNATURE_HEADER] = sign(SECRET, _wire_body(case.body))
