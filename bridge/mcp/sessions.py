"""An agent keeps at most `[mcp] sessions_per_agent` MCP sessions; opening one more closes its
oldest idle one, so no agent (a subagent's token included) can fill the server's table.

Which agent owns a session is the SDK's to enforce: /mcp marks each request with its agent
as the authenticated user, and the SDK answers a session id presented by anyone but its opener
404, exactly as for an unknown one. This module only counts and closes, and it closes a session
the way a client does, with a DELETE through the SDK's own handler, so the session's memory and
tasks go exactly as they do when a client ends it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import structlog
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bridge.http.bodies import replay

log = structlog.get_logger("askbridge.mcp")
SESSION_HEADER = b"mcp-session-id"


@dataclass
class _Session:
    calls: int = 0
    """POSTs in flight: a session with none is idle (an open GET stream does not count)."""
    last: float = field(default_factory=time.monotonic)


class AgentSessions:
    """The live sessions of each agent, oldest first, and the room to open another."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._by_agent: dict[str, dict[str, _Session]] = {}
        self._opening: dict[str, int] = {}

    def count(self, agent: str) -> int:
        return len(self._by_agent.get(agent, {})) + self._opening.get(agent, 0)

    async def serve(self, agent: str, scope: Scope, receive: Receive, send: Send,
                    sdk: ASGIApp) -> None:
        """One /mcp request of `agent`, handed to the SDK (`sdk`) with its session counted."""
        session_id = _header(scope, SESSION_HEADER)
        if session_id is not None:
            status: list[int] = []
            with self.call(agent, session_id, counts=scope["method"] == "POST"):
                await sdk(scope, receive, _watch(send, status))
            if scope["method"] == "DELETE" and status and status[0] < 300:
                self.forget(agent, session_id)
            return
        if scope["method"] != "POST":  # no session to open: the SDK says what is missing
            await sdk(scope, receive, send)
            return
        message, receive = await _message(receive)
        if message.get("method") != "initialize":  # 2026-07-28 is stateless: a request opens no session
            await sdk(scope, receive, send)
            return
        await self._open(agent, scope, receive, send, sdk, message.get("id"))

    async def _open(self, agent: str, scope: Scope, receive: Receive, send: Send,
                    sdk: ASGIApp, request_id: object = None) -> None:
        if not await self.reserve(agent, scope, sdk):
            await _all_busy(self.limit, request_id)(scope, receive, send)
            return
        opened: list[str] = []

        async def registering(message: Message) -> None:
            # Registered as the answer starts, before the client can use the id.
            if message["type"] == "http.response.start" and message["status"] < 400:
                found = dict(message.get("headers", [])).get(SESSION_HEADER)
                if found is not None and not opened:
                    opened.append(found.decode("latin-1"))
                    self.opened(agent, opened[0])
            await send(message)

        try:
            await sdk(scope, receive, registering)
        finally:
            if not opened:
                self.unreserve(agent)

    async def reserve(self, agent: str, scope: Scope, sdk: ASGIApp) -> bool:
        """Room for one more session of `agent`, closing its oldest idle ones if need be; False
        when every one of them has a call in flight. Call `opened` or `unreserve` after."""
        sessions = self._by_agent.setdefault(agent, {})
        while self.count(agent) >= self.limit:
            idle = [(s.last, sid) for sid, s in sessions.items() if s.calls == 0]
            if not idle:
                return False
            _, oldest = min(idle)
            del sessions[oldest]  # before the await: a concurrent opening sees the room taken
            log.info("mcp_session_closed_for_room", agent=agent, limit=self.limit)
            await _delete(sdk, scope, oldest)
        self._opening[agent] = self._opening.get(agent, 0) + 1
        return True

    def unreserve(self, agent: str) -> None:
        self._opening[agent] -= 1

    def opened(self, agent: str, session_id: str) -> None:
        """The SDK opened `session_id` for `agent` (in place of its reservation)."""
        self.unreserve(agent)
        self._by_agent.setdefault(agent, {})[session_id] = _Session()

    def forget(self, agent: str, session_id: str) -> None:
        self._by_agent.get(agent, {}).pop(session_id, None)

    @contextmanager
    def call(self, agent: str, session_id: str, counts: bool) -> Iterator[None]:
        """One request in `agent`'s session (a POST `counts` as a call in flight)."""
        session = self._by_agent.get(agent, {}).get(session_id)
        if session is None:  # another agent's, or one the SDK ended: the SDK answers it
            yield
            return
        session.calls += counts
        try:
            yield
        finally:
            session.calls -= counts
            session.last = time.monotonic()


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


async def _message(receive: Receive) -> tuple[dict[str, Any], Receive]:
    """The JSON-RPC message of a whole body (already read once by /mcp; `{}` if it is not one),
    and `receive` to hand the same body on."""
    first = await receive()
    try:
        parsed = json.loads(first.get("body", b"") or b"null")
    except ValueError:
        parsed = None
    return (parsed if isinstance(parsed, dict) else {}), replay(first, receive)


def _watch(send: Send, status: list[int]) -> Send:
    async def watching(message: Message) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
        await send(message)
    return watching


async def _delete(sdk: ASGIApp, scope: Scope, session_id: str) -> None:
    """End a session as its client would: a DELETE with its id, from its own agent (the
    request in `scope` is that agent's), answered to no one."""
    headers = [(k, v) for k, v in scope.get("headers", [])
               if k.lower() not in (SESSION_HEADER, b"content-length", b"content-type")]
    delete = {**scope, "method": "DELETE",
              "headers": [*headers, (SESSION_HEADER, session_id.encode("latin-1"))]}
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        return {"type": "http.disconnect"}

    async def discard(_: Message) -> None:
        return None

    await sdk(delete, receive, discard)


def _all_busy(limit: int, request_id: object) -> JSONResponse:
    """Every session of the agent has a call in flight: none can be closed to make room."""
    return JSONResponse({"jsonrpc": "2.0", "id": request_id, "error": {
        "code": -32603, "message": f"This agent already has {limit} MCP sessions, each with a "
        "call in flight; end one (DELETE /mcp with its Mcp-Session-Id) or wait for a call to "
        "finish, then initialize again."}}, status_code=503, headers={"Retry-After": "5"})
