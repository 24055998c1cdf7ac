"""Text askbridge can keep: no lone surrogate (not Unicode text) and no NUL (PostgreSQL refuses it).

JSON can carry both as escapes (`"\\ud83d"`, `"\\u0000"`); neither is valid in a UTF-8 string
nor in a PostgreSQL `text` column, and SQLite would keep a NUL that cuts C strings short. So a
string field holding either is refused by name, the same on every route and store.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

_FAULTY = re.compile("[\x00\ud800-\udfff]")
_ESCAPED = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")
"""The only spellings of a NUL or a surrogate inside JSON that parses: a `\\u` escape."""

Loc = tuple[int | str, ...]


def text_fault(value: str) -> str | None:
    """What is wrong with `value` as kept text, as a sentence, or None when nothing is."""
    found = _FAULTY.search(value)
    if found is None:
        return None
    if found.group() == "\x00":
        return "This text holds a NUL character (U+0000); remove it and send the text again."
    return ("This text holds a lone surrogate (half of a UTF-16 pair, not a character); send "
            "valid Unicode text.")


def escaped(value: str) -> str:
    """`value` with each NUL or surrogate written as its `\\uXXXX` escape: safe to send back."""
    return _FAULTY.sub(_escape, value)


def _escape(found: re.Match[str]) -> str:
    return f"\\u{ord(found.group()):04x}"


def may_hold_faults(raw: bytes) -> bool:
    """False when raw JSON surely decodes to no faulty string (a quick scan before a walk)."""
    return _ESCAPED.search(raw) is not None


def text_faults(value: Any, loc: Loc = ()) -> Iterator[tuple[Loc, str]]:
    """Every faulty string in decoded JSON (object keys too): where, and what is wrong."""
    if isinstance(value, str):
        fault = text_fault(value)
        if fault is not None:
            yield loc, fault
    elif isinstance(value, dict):
        for key, item in value.items():
            name = escaped(key)  # a place named in a reply must be valid text
            if name != key:
                yield (*loc, name), str(text_fault(key))
            yield from text_faults(item, (*loc, name))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from text_faults(item, (*loc, index))
