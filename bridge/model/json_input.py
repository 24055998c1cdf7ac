"""Every JSON body a client sends is parsed here: too deep or unparseable is a refusal, never a 500."""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from bridge.model.errors import UnsupportedMedia
from bridge.model.text_faults import may_hold_faults, text_faults
from bridge.model.validation import InvalidRequest, Problem, format_loc

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

    def __init__(self, msg: str, problems: list[Problem] | None = None) -> None:
        super().__init__(problems or [Problem(loc="body", msg=msg)])


class BadText(BadJson):
    """JSON whose strings hold a NUL or a lone surrogate: every such field, by name."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems[0].msg, problems)


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


def parse_json(raw: bytes | str, *, text: bool = True) -> Any:
    """Parse a client's JSON; raise `BadJson` (a 4xx, `loc` "body") for anything unreadable, and
    `BadText` naming every string with a NUL or a lone surrogate (unless `text` is False)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if depth(data) > MAX_DEPTH:
        raise BadJson(f"The JSON nests deeper than {MAX_DEPTH} levels; send a flatter body.")
    try:
        value = json.loads(data or b"null", parse_int=_int)
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise BadJson("The body is not valid JSON; send a JSON object.") from None
    if text and may_hold_faults(data):
        faults = [Problem(loc=format_loc(loc), msg=msg) for loc, msg in text_faults(value)]
        if faults:
            raise BadText(faults)
    return value


def declared_json(content_type: str | None) -> None:
    """Refuse (415) a body declared as anything but JSON. A body with no Content-Type at all is
    read as JSON: that is what every askbridge route takes, and what bare clients send."""
    if content_type is None or not content_type.strip():
        return
    media = content_type.split(";", 1)[0].strip().lower()
    if media != "application/json" and not (media.startswith("application/")
                                            and media.endswith("+json")):
        raise UnsupportedMedia(f"The body is declared as {media!r}; send JSON with "
                               "Content-Type: application/json.")
