"""The server's VAPID key pair (RFC 8292): made once, kept in the web adapter's durable state."""

from __future__ import annotations

import base64
import functools

from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid

from bridge import AdapterState

PRIVATE_KEY = "vapid:private"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _raw_private(key: Vapid) -> str:
    value: int = key.private_key.private_numbers().private_value
    return b64url(value.to_bytes(32, "big"))


async def vapid_key(state: AdapterState) -> Vapid:
    """The stored key pair, generated and stored on first use.

    It lives in the store (not a file), so every replica signs with the key the browsers
    subscribed with, on SQLite and PostgreSQL alike. The private key never leaves the store:
    no route returns it and nothing logs it.

    Two replicas starting at once may both generate one; each re-reads what was stored last,
    so they settle on one key before any browser can have subscribed with the other.
    """
    raw = await state.get(PRIVATE_KEY)
    if raw is None:
        fresh = Vapid()
        fresh.generate_keys()
        await state.put(PRIVATE_KEY, _raw_private(fresh))
        raw = await state.get(PRIVATE_KEY)
        assert raw is not None
    return _key_of(raw)


@functools.lru_cache(maxsize=2)
def _key_of(raw: str) -> Vapid:
    """Deriving the key costs ~0.15 ms of CPU: once per stored value, not once per push (the
    value is still read every time, so a replica follows the key the others settled on)."""
    key: Vapid = Vapid.from_raw(raw.encode())
    return key


def public_key(key: Vapid) -> str:
    """The application server key browsers subscribe with: the uncompressed P-256 point."""
    point: bytes = key.public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return b64url(point)
