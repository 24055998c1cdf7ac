"""Secrets handling: constant-time token checks and HMAC-SHA256 body signatures."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable

SIGNATURE_HEADER = "X-Askbridge-Signature"


def sign(secret: str, body: bytes) -> str:
    """`sha256=<hex HMAC-SHA256 of body>`."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify_signature(secret: str, body: bytes, header: str | None) -> bool:
    if not header or not secret:
        return False
    return hmac.compare_digest(sign(secret, body).encode(), header.strip().encode())


def match_token(given: str | None, candidates: Iterable[tuple[str, str]]) -> str | None:
    """The name whose token equals `given`, comparing every candidate in constant time."""
    found: str | None = None
    given_bytes = (given or "").encode()
    for name, token in candidates:
        if hmac.compare_digest(given_bytes, token.encode()) and token:
            found = name
    return found


def bearer(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def same_secret(given: str, expected: str) -> bool:
    """Whether a secret header equals the configured secret, in constant time. Compared as
    bytes: `hmac.compare_digest` raises on a str that is not ASCII, and such a header must be
    refused like any wrong one (the latin-1 text of a header's bytes encodes back losslessly)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"),
                               expected.encode("utf-8", "surrogateescape"))
