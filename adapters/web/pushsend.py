"""The part of Web Push that talks to push services: pywebpush over one aiohttp session.

Loaded with the first push that has a device to go to (`Pusher` imports this module on a worker
thread). Importing pywebpush, which brings aiohttp and requests, costs about 0.24 s of CPU and
13 MB (measured; bench/README.md), and a bridge whose web UI has no subscribed device never
needs it: every start, and every restart, was paying for it.
"""

from __future__ import annotations

from typing import Any

import aiohttp
from py_vapid import Vapid
from pywebpush import WebPushException, webpush_async


class PushSender:
    """POSTs encrypted pushes; one connection pool for every push service."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout))

    async def close(self) -> None:
        await self._http.close()

    async def attempt(self, info: dict[str, Any], data: str, key: Vapid, subject: str, ttl: int,
                      urgency: str) -> int | None:
        """One POST to the push service: its status, or None when it could not be reached."""
        try:
            response = await webpush_async(
                info, data, vapid_private_key=key, vapid_claims={"sub": subject},
                content_encoding="aes128gcm", ttl=ttl, timeout=self.timeout,
                headers={"Urgency": urgency}, aiohttp_session=self._http)
        except WebPushException as exc:
            code = exc.status_code
            return None if code is None else int(code)
        except (aiohttp.ClientError, TimeoutError):
            return None
        return int(getattr(response, "status", 201))
