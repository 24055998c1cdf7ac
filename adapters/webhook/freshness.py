"""Optional replay protection: a timestamp header covered by a second signature (opt-in, compatible)."""

from __future__ import annotations

import hashlib
import hmac
import time

TIMESTAMP_HEADER = "X-Askbridge-Timestamp"
TIMESTAMPED_HEADER = "X-Askbridge-Signature-V2"


def sign_timestamped(secret: str, timestamp: str, body: bytes) -> str:
    """`sha256=<hex HMAC-SHA256 of "v2:<timestamp>:" + body>`."""
    mac = hmac.new(secret.encode(), b"v2:" + timestamp.encode() + b":" + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def timestamp_headers(secret: str, body: bytes) -> dict[str, str]:
    """Sent with every outbound post, so gateways can refuse stale or replayed prompts too."""
    stamp = str(int(time.time()))
    return {TIMESTAMP_HEADER: stamp, TIMESTAMPED_HEADER: sign_timestamped(secret, stamp, body)}


class Freshness:
    """Refuses stale and already-seen timestamped requests; untimestamped ones pass unless required.

    Seen signatures are remembered for the window in this process only (see docs/reliability.md).
    """

    def __init__(self, window_seconds: int, required: bool) -> None:
        self.window = window_seconds
        self.required = required
        self._seen: dict[str, float] = {}

    def problem(self, secret: str, body: bytes, stamp: str | None, signature: str | None
                ) -> str | None:
        """Why the request must be refused, or None."""
        if stamp is None:
            return (f"Send {TIMESTAMP_HEADER} and {TIMESTAMPED_HEADER}; this channel requires "
                    "them.") if self.required else None
        now = time.time()
        try:
            age = now - int(stamp)
        except ValueError:
            return f"{TIMESTAMP_HEADER} must be Unix seconds."
        if abs(age) > self.window:
            return f"{TIMESTAMP_HEADER} is more than {self.window} s away from now; resend fresh."
        expected = sign_timestamped(secret, stamp, body)
        if not signature or not hmac.compare_digest(expected.encode(), signature.strip().encode()):
            return f"{TIMESTAMPED_HEADER} must be sha256=<hex HMAC of \"v2:<timestamp>:\" + body>."
        self._seen = {s: t for s, t in self._seen.items() if now - t <= self.window}
        if expected in self._seen:
            return "This request was already received (a replay); it is ignored."
        self._seen[expected] = now
        return None
