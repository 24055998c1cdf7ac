"""A fake Web Push service (aiohttp on 127.0.0.1) and a test that plays the browser."""

# The browser side makes what a real `PushManager.subscribe` makes: a P-256 key pair and a 16-byte
# auth secret. The service checks each push as a real one does — the VAPID JWT (ES256, `aud` = the
# endpoint's origin, signed by the key in `k`) — and decrypts the body (RFC 8291 aes128gcm) with
# the subscriber's private key, as only the browser could.

from __future__ import annotations

import asyncio
import base64
import json
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import http_ece
from aiohttp import web
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class FakeBrowser:
    """One device's subscription: the keys a browser would make, and what its service replies."""

    endpoint: str
    replies: list[int] = field(default_factory=list)
    """Statuses to answer with, one per push, in order; 201 once they run out."""
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self) -> dict[str, Any]:
        """What `PushSubscription.toJSON()` gives the page."""
        point = self.key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)}}

    def decrypt(self, body: bytes) -> dict[str, Any]:
        plain = http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth,
                                 version="aes128gcm")
        data: dict[str, Any] = json.loads(plain)
        return data


@dataclass
class Push:
    """One push as the service received it, checked and decrypted."""

    browser: FakeBrowser
    status: int
    headers: dict[str, str]
    """Lower-cased names."""
    claims: dict[str, Any]
    vapid_key: str
    """The `k` of the Authorization header: the server's public key that signed the JWT."""
    payload: dict[str, Any]


class FakePushService:
    def __init__(self) -> None:
        self.origin = ""
        self.browsers: dict[str, FakeBrowser] = {}
        self.pushes: list[Push] = []
        self.refused: list[str] = []
        self.hold: asyncio.Event | None = None
        self.held = 0

    def browser(self, name: str, replies: list[int] | None = None) -> FakeBrowser:
        made = FakeBrowser(f"{self.origin}/push/{name}", list(replies or []))
        self.browsers[name] = made
        return made

    def delivered(self, browser: FakeBrowser) -> list[dict[str, Any]]:
        return [p.payload for p in self.pushes if p.browser is browser and p.status < 300]

    async def _receive(self, request: web.Request) -> web.Response:
        browser = self.browsers.get(request.match_info["name"])
        if browser is None:
            return web.Response(status=404)
        if self.hold is not None:
            self.held += 1
            await self.hold.wait()
        problem, claims, key = check_vapid(request.headers.get("Authorization", ""), self.origin)
        if problem:
            self.refused.append(problem)
            return web.Response(status=403, text=problem)
        status = browser.replies.pop(0) if browser.replies else 201
        payload = browser.decrypt(await request.read())
        headers = {k.lower(): v for k, v in request.headers.items()}
        self.pushes.append(Push(browser, status, headers, claims, key, payload))
        return web.Response(status=status)


def check_vapid(header: str, origin: str) -> tuple[str | None, dict[str, Any], str]:
    """RFC 8292: `vapid t=<JWT>,k=<public key>`; the JWT is ES256 over the key, `aud` = origin."""
    scheme, _, rest = header.partition(" ")
    parts = dict(p.split("=", 1) for p in rest.split(",") if "=" in p)
    if scheme.lower() != "vapid" or "t" not in parts or "k" not in parts:
        return "no vapid authorization", {}, ""
    signed, _, signature = parts["t"].rpartition(".")
    head, _, body = signed.partition(".")
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(parts["k"]))
    raw = unb64url(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        public.verify(der, signed.encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return "bad signature", {}, parts["k"]
    if json.loads(unb64url(head)).get("alg") != "ES256":
        return "not ES256", {}, parts["k"]
    claims: dict[str, Any] = json.loads(unb64url(body))
    if claims.get("aud") != origin:
        return f"aud {claims.get('aud')!r} is not {origin!r}", claims, parts["k"]
    if not time.time() < claims.get("exp", 0) <= time.time() + 24 * 3600:
        return "exp must be within 24 hours", claims, parts["k"]
    return None, claims, parts["k"]


@asynccontextmanager
async def fake_push_service() -> AsyncIterator[FakePushService]:
    """A FakePushService on 127.0.0.1 and an ephemeral port for the block's duration."""
    fake = FakePushService()
    app = web.Application()
    app.router.add_post("/push/{name}", fake._receive)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    fake.origin = f"http://127.0.0.1:{port}"
    try:
        yield fake
    finally:
        if fake.hold is not None:
            fake.hold.set()
        await runner.cleanup()
