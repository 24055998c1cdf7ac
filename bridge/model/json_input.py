"""Every JSON body a client sends is parsed here: too deep or unparseable is a refusal, never a 500."""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from bridge.model.validation import InvalidRequest, Problem

MAX_DEPTH = 32
"""Far deeper than any askbridge or platform payload (an ask is 5 levels, a Slack view ~10);
Python's own JSON parser gives up near 1,000 levels with a RecursionError."""
MAX_DIGITS = 4300
"""Python refuses to convert longer digit strings (quadratic time): sys.get_int_max_str_digits()."""
HUGE: int = 10**MAX_DIGITS - 1
_STRINGS = re.compile(rb'"[^"]*"')  # once escaped backslashes and quotes are gone
# Opening brackets count +1, closing ones -1 (255 as a signed byte), everything else is dropped.
_DEPTH_TABLE = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


class BadJson(InvalidRequest, ValueError):
    """A body that is not JSON askbridge reads; a ValueError too, for callers that catch those."""

    def __init__(self, msg: str) -> None:
        super().__init__([Problem(loc="body", msg=msg)])


def depth(raw: bytes) -> int:
    """How deeply arrays and objects nest, ignoring brackets inside strings (all in C loops)."""
    unescaped = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    brackets = _STRINGS.sub(b"", unescaped).translate(_DEPTH_TABLE, _NOT_BRACKETS)
    if not brackets:
        return 0
    return max(accumulate(memoryview(brackets).cast("b")))


def _int(digits: str) -> int:
    """An integer longer than Python converts keeps its sign and becomes the largest one it
    does: every limit that clamps the true value clamps this one (`timeoutSeconds` → 3600),
    every limit that refuses it refuses this one."""
    if len(digits.lstrip("-")) <= MAX_DIGITS:
        return int(digits)
    return -HUGE if digits.startswith("-") else HUGE


def parse_json(raw: bytes | str) -> Any:
    """Parse a client's JSON; raise `BadJson` (a 4xx, `loc` "body") for anything unreadable."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if depth(data) > MAX_DEPTH:
        raise BadJson(f"The JSON nests deeper than {MAX_DEPTH} levels; send a flatter body.")
    try:
        return json.loads(data or b"null", parse_int=_int)
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise BadJson("The body is not valid JSON; send a JSON object.") from None
