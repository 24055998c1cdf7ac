"""RFC 8785 canonical JSON and its SHA-256: what an approval's payload and an audit entry are bound to.

The canonical form is written by the `rfc8785` package (Trail of Bits): sorted keys by UTF-16
code units, ECMAScript number formatting, no whitespace; the same value gives the same bytes
on every replica and in every language that implements the RFC."""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785

CanonicalError = rfc8785.CanonicalizationError
"""A value JSON cannot say canonically: NaN or an infinity, an integer beyond ±2^53, a
non-string key."""


def canonical(value: Any) -> bytes:
    """The RFC 8785 bytes of `value`; raises `CanonicalError` for what has none."""
    return rfc8785.dumps(value)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def payload_hash(arguments: Any) -> str:
    """The SHA-256 (hex) of the canonical arguments: what a decision says it was shown."""
    return sha256_hex(canonical(arguments))
