"""Lone surrogates on their way to the MCP SDK, which parses bodies with a JSON parser that
refuses them (`"\\ud83d"`) as a parse error: each is replaced by U+FFFD before the SDK reads the
body, and remembered by place, so that the tool still refuses the argument by name with the
same sentence as the 422 (a NUL passes through: the tool's own checks name it)."""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.types import Receive

from bridge.http.bodies import replay
from bridge.model.text_faults import Loc, may_hold_faults, text_faults
from bridge.model.validation import Problem, format_loc

TEXT_FAULTS = "askbridge.text_faults"
"""Scope key: the `(place, sentence)` of each string the SDK got with a surrogate replaced."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def _mended(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_mended(k): _mended(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mended(v) for v in value]
    return value


async def without_surrogates(receive: Receive) -> tuple[Receive, list[tuple[Loc, str]]]:
    """`receive` (a whole body, read once) with every lone surrogate replaced; where each was."""
    first = await receive()
    raw = first.get("body", b"")
    if not may_hold_faults(raw):
        return replay(first, receive), []
    value = json.loads(raw)
    faults = [(loc, msg) for loc, msg in text_faults(value) if "surrogate" in msg]
    if not faults:
        return replay(first, receive), []
    body = json.dumps(_mended(value)).encode()
    return replay({**first, "body": body}, receive), faults


def argument_problems(faults: list[tuple[Loc, str]]) -> list[Problem]:
    """The faults inside a `tools/call`'s arguments, placed as the tool's own checks place them."""
    return [Problem(loc=format_loc(loc[2:]), msg=msg) for loc, msg in faults
            if loc[:2] == ("params", "arguments") and len(loc) > 2]
