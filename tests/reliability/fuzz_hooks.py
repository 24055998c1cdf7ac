"""Schemathesis hooks for the fuzz run (SCHEMATHESIS_HOOKS): credentials, signed channel
replies, long-polls kept short so the run stays within its budget, and bodies with a NUL or a
lone surrogate put into one of their strings (each must be a 422 naming it, never a 500)."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator
from typing import Any

import schemathesis
from hypothesis import strategies as st
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


FAULTS = st.one_of(st.just("\x00"), st.characters(categories=["Cs"]))
"""What JSON can carry and no store can keep: a NUL, or half of a UTF-16 surrogate pair."""
Path = tuple[int | str, ...]


def _strings(value: Any, path: Path = ()) -> Iterator[Path]:
    """The path of every string in a JSON value."""
    if isinstance(value, str):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, (*path, index))


def _inject(body: Any, path: Path, fault: str, at: int) -> Any:
    """`body` with `fault` put into the string at `path`, at position `at` (or its end)."""
    faulty = copy.deepcopy(body)
    holder = faulty
    for part in path[:-1]:
        holder = holder[part]
    text = holder[path[-1]]
    holder[path[-1]] = text[:at] + fault + text[at:]
    return faulty


@schemathesis.hook
def flatmap_body(context: Any, body: Any) -> st.SearchStrategy[Any]:
    """The body as generated, or with a NUL or a lone surrogate in one of its strings."""
    paths = list(_strings(body))
    if not paths:
        return st.just(body)
    return st.one_of(st.just(body), st.builds(_inject, st.just(body), st.sampled_from(paths),
                                              FAULTS, st.integers(0, 64)))
