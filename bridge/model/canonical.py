"""RFC 8785 canonical JSON and its SHA-256: what an approval's payload and an audit entry are bound to.

The canonical form is written by the `rfc8785` package (Trail of Bits): sorted keys by UTF-16
code units, ECMAScript number formatting, no whitespace; the same value gives the same bytes
on every replica and in every language that implements the RFC."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import rfc8785

CanonicalError = rfc8785.CanonicalizationError
"""A value JSON cannot say canonically: NaN or an infinity, an integer beyond ±2^53, a
non-string key."""


def canonical(value: Any) -> bytes:
    """The RFC 8785 bytes of `value`; raises `CanonicalError` for what has none."""
    try:
        return rfc8785.dumps(value)
    except UnicodeEncodeError as exc:  # a lone surrogate in a key: the package's key sort
        raise CanonicalError(f"a key is not Unicode text ({exc.reason})") from None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def payload_hash(arguments: Any) -> str:
    """The SHA-256 (hex) of the canonical arguments: what a decision says it was shown."""
    return sha256_hex(canonical(arguments))


SAFE_INTEGER = 2**53 - 1


def _number(digits: str) -> int | float:
    """A whole number in canonical text: beyond ±2^53 it can only have been a float (the RFC
    refuses such integers), so it is read back as that float, which writes the same text."""
    value = int(digits)
    return value if abs(value) <= SAFE_INTEGER else float(value)


def canonical_loads(text: str | bytes) -> Any:
    """Read canonical JSON back so that `canonical()` of the result gives the same bytes."""
    return json.loads(text, parse_int=_number)
