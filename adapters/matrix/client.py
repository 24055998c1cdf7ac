"""matrix-nio calls as askbridge needs them: event ids or `DeliveryError`s that say what to do.

Rate limits are nio's: on `M_LIMIT_EXCEEDED` it sleeps the server's `retry_after_ms` and sends
again, up to `max_rate_limited` times per call (each logged here as `rate_limited`); timeouts
are retried twice, then reported.
"""

from __future__ import annotations

import asyncio
from typing import Any

import structlog
from aiohttp import ClientError
from nio import (
    AsyncClient,
    AsyncClientConfig,
    ErrorResponse,
    JoinedMembersResponse,
    JoinResponse,
    RoomCreateResponse,
    RoomGetEventResponse,
    RoomGetStateEventResponse,
    RoomPreset,
    RoomSendResponse,
    SyncResponse,
    WhoamiResponse,
)

from adapters.matrix.config import MatrixConfig
from bridge import DeliveryError, count_rate_limited

log = structlog.get_logger("askbridge.matrix")
TRANSPORT_ERRORS = (ClientError, TimeoutError, asyncio.TimeoutError, OSError)


class SyncFailed(Exception):
    """One /sync did not succeed; the reconnect loop backs off and tries again."""


def explain(error: Any, config: MatrixConfig) -> str:
    """A sentence a person can act on; homeserver messages never contain the token."""
    code = getattr(error, "status_code", None)
    said = getattr(error, "message", None) or code or type(error).__name__
    if code == "M_UNKNOWN_TOKEN":
        return (f"the homeserver rejected the access token in ${config.access_token_env}; log in "
                f"as {config.user_id} again and export the new token")
    if code == "M_FORBIDDEN":
        return (f"{config.user_id} may not post there ({said}); invite it to the room and let it "
                "join (it accepts invites from answerers)")
    if code == "M_LIMIT_EXCEEDED":
        return "the homeserver keeps asking to slow down (M_LIMIT_EXCEEDED); try again later"
    return f"the homeserver refused the call ({said})"


async def rate_limited(resp: ErrorResponse) -> None:
    """nio hands every error answer here before it acts on it: a 429 is logged and counted."""
    if resp.status_code in ("M_LIMIT_EXCEEDED", 429):
        count_rate_limited("matrix")
        log.warning("rate_limited", platform="matrix", method=type(resp).__name__,
                    retry_after=(resp.retry_after_ms or 5000) / 1000)


class MatrixClient:
    """One nio `AsyncClient` for the bot account (no end-to-end encryption)."""

    def __init__(self, config: MatrixConfig, token: str) -> None:
        self.config = config
        self.user_id = config.user_id
        self.nio = AsyncClient(config.homeserver, config.user_id, config=AsyncClientConfig(
            max_limit_exceeded=config.max_rate_limited, max_timeouts=2,
            request_timeout=config.request_timeout, encryption_enabled=False,
            store_sync_tokens=False))
        self.nio.access_token = token
        self.nio.user_id = config.user_id
        self.nio.add_response_callback(rate_limited, ErrorResponse)

    async def close(self) -> None:
        await self.nio.close()

    async def send(self, room_id: str, event_type: str, content: dict[str, Any],
                   txn: str | None = None) -> str:
        """Send one event; its id, or `DeliveryError` saying why it could not be sent."""
        try:
            resp = await self.nio.room_send(room_id, event_type, content, tx_id=txn)
        except TRANSPORT_ERRORS as exc:
            raise DeliveryError(f"the homeserver {self.config.homeserver} could not be reached "
                                f"({type(exc).__name__})") from exc
        if isinstance(resp, RoomSendResponse):
            return str(resp.event_id)
        log.warning("matrix_send_refused", room_id=room_id, event_type=event_type,
                    errcode=getattr(resp, "status_code", None))
        raise DeliveryError(explain(resp, self.config))

    async def event(self, room_id: str, event_id: str) -> dict[str, Any] | None:
        """An event's raw JSON, or None when it cannot be read."""
        try:
            resp = await self.nio.room_get_event(room_id, event_id)
        except TRANSPORT_ERRORS:
            return None
        if isinstance(resp, RoomGetEventResponse):
            source: dict[str, Any] = resp.event.source
            return source
        return None

    async def members(self, room_id: str) -> set[str] | None:
        """Who joined the room (the bot too), or None when the homeserver does not say."""
        try:
            resp = await self.nio.joined_members(room_id)
        except TRANSPORT_ERRORS:
            return None
        if not isinstance(resp, JoinedMembersResponse):
            return None
        return {m.user_id for m in resp.members}

    async def membership(self, room_id: str, user_id: str) -> str | None:
        """`join`, `invite`, `leave` … of `user_id` in the room; None when unknown."""
        try:
            resp = await self.nio.room_get_state_event(room_id, "m.room.member", user_id)
        except TRANSPORT_ERRORS:
            return None
        if not isinstance(resp, RoomGetStateEventResponse):
            return None
        found = resp.content.get("membership")
        return found if isinstance(found, str) else None

    async def direct_room(self, user_id: str) -> str | None:
        """A new private, unencrypted room of the bot and `user_id` (invited, as a direct chat);
        its id, or None when the homeserver refuses."""
        try:
            resp = await self.nio.room_create(is_direct=True, invite=[user_id],
                                              preset=RoomPreset.trusted_private_chat)
        except TRANSPORT_ERRORS:
            return None
        return str(resp.room_id) if isinstance(resp, RoomCreateResponse) else None

    async def join(self, room_id: str) -> bool:
        try:
            return isinstance(await self.nio.join(room_id), JoinResponse)
        except TRANSPORT_ERRORS:
            return False

    async def whoami(self) -> str:
        try:
            resp = await self.nio.whoami()
        except TRANSPORT_ERRORS as exc:
            raise DeliveryError(f"the homeserver {self.config.homeserver} could not be reached "
                                f"({type(exc).__name__})") from exc
        if not isinstance(resp, WhoamiResponse):
            raise DeliveryError(explain(resp, self.config))
        if resp.user_id != self.user_id:
            raise DeliveryError(f"the token in ${self.config.access_token_env} belongs to "
                                f"{resp.user_id}, not {self.user_id}; fix user_id or the token")
        return str(resp.user_id)

    async def sync(self, since: str | None, timeout_ms: int, sync_filter: dict[str, Any]) -> Any:
        """One /sync; the `SyncResponse`, or `SyncFailed`."""
        try:
            resp = await self.nio.sync(timeout=timeout_ms, since=since, sync_filter=sync_filter)
        except TRANSPORT_ERRORS as exc:
            raise SyncFailed(type(exc).__name__) from exc
        if isinstance(resp, ErrorResponse) or not isinstance(resp, SyncResponse):
            raise SyncFailed(explain(resp, self.config))
        return resp
