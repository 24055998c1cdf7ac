"""Lone surrogates on their way to the MCP SDK, which parses bodies with a JSON parser that
refuses them (`"\\ud83d"`) as a parse error: each is replaced by U+FFFD before the SDK reads the
body (or, over stdio, the line), and remembered by place, so that the tool still refuses the
argument by name with the same sentence as the 422 (a NUL passes through: the tool's own checks
name it). Over stdio a refused line would get no answer at all: the call would wait forever."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Sequence
from contextvars import ContextVar
from typing import Any

from starlette.types import Receive

from bridge.http.bodies import replay
from bridge.model.text_faults import Loc, may_hold_faults, text_faults
from bridge.model.validation import Problem, format_loc

TEXT_FAULTS = "askbridge.text_faults"
"""Scope key: the `(place, sentence)` of each string the SDK got with a surrogate replaced."""
LINE_FAULTS: ContextVar[Sequence[tuple[Loc, str]]] = ContextVar("askbridge_line_faults",
                                                               default=())
"""Over stdio, the faults of the line a message came in on (the SDK hands each message on with
the context it was read in)."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def _mended(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_mended(k): _mended(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mended(v) for v in value]
    return value


def mended(raw: bytes) -> tuple[bytes | None, list[tuple[Loc, str]]]:
    """JSON `raw` with every lone surrogate replaced (None: nothing to replace); where each was."""
    if not may_hold_faults(raw):
        return None, []
    try:
        value = json.loads(raw)
    except ValueError:
        return None, []  # not JSON: the SDK says so
    faults = [(loc, msg) for loc, msg in text_faults(value) if "surrogate" in msg]
    return (json.dumps(_mended(value)).encode() if faults else None), faults


async def without_surrogates(receive: Receive) -> tuple[Receive, list[tuple[Loc, str]]]:
    """`receive` (a whole body, read once) with every lone surrogate replaced; where each was."""
    first = await receive()
    body, faults = mended(first.get("body", b""))
    return replay(first if body is None else {**first, "body": body}, receive), faults


async def mended_lines(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """stdin's lines, each with its lone surrogates replaced and their places in `LINE_FAULTS`."""
    async for line in lines:
        body, faults = mended(line.encode("utf-8", "replace"))
        LINE_FAULTS.set(faults)
        yield line if body is None else body.decode() + "\n"


def argument_problems(faults: Sequence[tuple[Loc, str]]) -> list[Problem]:
    """The faults inside a `tools/call`'s arguments, placed as the tool's own checks place them."""
    return [Problem(loc=format_loc(loc[2:]), msg=msg) for loc, msg in faults
            if loc[:2] == ("params", "arguments") and len(loc) > 2]
