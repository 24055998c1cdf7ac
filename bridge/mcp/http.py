"""Streamable HTTP MCP at /mcp: bearer token → agent, `X-Askbridge-Session` → session.

Both revisions on one endpoint: the SDK routes each request by its `MCP-Protocol-Version`.
2025-11-25 (sessions): a client that vanishes mid-call must not leave its question pending: each
POST's stream is watched, and a tool call whose stream has been closed for `GRACE_SECONDS`
cancels its question (a deleted MCP session ends the SDK's in-flight handlers, which cancels them
too). 2026-07-28 (stateless): see `bridge.mcp.waits`.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio
import structlog
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.types import PARSE_ERROR
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from bridge.core.approvals import Approvals
from bridge.core.broker import Broker
from bridge.core.card_links import CardLinks
from bridge.core.receiver import Receiver
from bridge.http.bodies import reread
from bridge.http.responses import refusal
from bridge.mcp.approval_tools import ApprovalTools
from bridge.mcp.approvers import BrokerApprover
from bridge.mcp.asking import BrokerAsker
from bridge.mcp.odd_text import TEXT_FAULTS, without_surrogates
from bridge.mcp.origins import OriginGuard
from bridge.mcp.sessions import AgentSessions
from bridge.mcp.tool import build_server
from bridge.mcp.waits import Waits
from bridge.model.errors import NOT_AUTHORIZED, Forbidden, Unauthorized
from bridge.runtime.security import bearer, match_token

PROGRESS_SECONDS = 10.0
STATE_TTL = 3660.0
"""How long a requestState stays good: a question's longest life (3600 s) and a minute, so a
person may take all of it over the host's form (the SDK's default is 600 s)."""
GRACE_SECONDS = 10.0
"""How long a closed stream may stay closed before its question is cancelled."""
STREAM_CLOSED = "askbridge.stream_closed"
"""Scope key of the event the /mcp app sets once a request's HTTP exchange has ended."""
log = structlog.get_logger("askbridge.mcp")
_current: contextvars.ContextVar[tuple[str, str]] = contextvars.ContextVar("askbridge_mcp_agent")
_closed: contextvars.ContextVar[asyncio.Event] = contextvars.ContextVar("askbridge_mcp_closed")


async def stream_gone(grace: float, request: Any) -> None:
    """Returns once this call's POST stream has been closed for `grace` seconds.

    The server keeps no event store, so a closed stream cannot be resumed (a resumed GET
    would have nothing to replay); the grace period only spares a response that is being
    written as the connection drops.
    """
    closed = getattr(request, "scope", {}).get(STREAM_CLOSED)
    if not isinstance(closed, asyncio.Event):
        await asyncio.Event().wait()  # not over HTTP: nothing to watch
        return
    await closed.wait()
    await asyncio.sleep(grace)


class _ClientGone(logging.Filter):
    """The SDK logs a client that closed its stream as an error with a traceback; it is not one:
    say so in one structured line instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, anyio.ClosedResourceError | anyio.BrokenResourceError):
            log.info("mcp_stream_closed", where=record.getMessage())
            return False
        return True


_CLIENT_GONE = _ClientGone()


def mcp_mount(
    broker: Broker, receiver: Receiver, tokens: dict[str, str], guard: OriginGuard,
    state_key: str, interval: float = PROGRESS_SECONDS, grace: float = GRACE_SECONDS,
    sessions_per_agent: int = 32, reattach_seconds: float = 60.0,
    approvals: Approvals | None = None, links: CardLinks | None = None,
) -> tuple[ASGIApp, Callable[[Any], AbstractAsyncContextManager[None]]]:
    """The /mcp ASGI app and the lifespan that runs its session manager. `state_key` seals
    2026-07-28 `requestState`: every replica must be given the same one."""
    waits = Waits(broker, reattach_seconds)

    def asker_for() -> BrokerAsker:
        agent, session = _current.get()

        def gone(request: Any) -> Awaitable[None]:
            return stream_gone(grace, request)

        return BrokerAsker(broker, receiver, waits, agent, session, interval, gone, links)

    sdk_log = logging.getLogger("mcp.server.streamable_http")
    if _CLIENT_GONE not in sdk_log.filters:
        sdk_log.addFilter(_CLIENT_GONE)
    # Stateful sessions, so that a client's notifications/cancelled reaches the waiting call.
    # The SDK's one cap for everyone is off: each agent has its own (AgentSessions).
    def approval_tools() -> ApprovalTools:
        """The approval tools for the agent and session of this request; a 2025-11-25 call's
        approval is cancelled once its stream has been closed for `grace` seconds, a
        2026-07-28 call's as its questions are (`waits`)."""
        agent, session = _current.get()
        closed = _closed.get()
        assert approvals is not None

        async def gone() -> None:
            await closed.wait()
            await asyncio.sleep(grace)

        return ApprovalTools(BrokerApprover(approvals, agent, session, gone, interval, waits))

    server = build_server(asker_for, more=approval_tools if approvals else None)
    # The retry's requestState is sealed with the shared key and bound to the agent: any
    # replica accepts it, and no other agent can replay it.
    server.middleware.append(RequestStateBoundary(RequestStateSecurity(
        keys=[state_key], bind_principal=lambda _: _current.get()[0], ttl=STATE_TTL),
        default_audience="askbridge"))
    manager = StreamableHTTPSessionManager(server, stateless=False, json_response=False,
                                           max_sessions=None)
    sessions = AgentSessions(sessions_per_agent)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        # latin-1, as HTTP reads header bytes: a non-ASCII token is then simply a wrong one.
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        foreign = guard.refusal(headers)
        if foreign is not None:  # before the token: a foreign page learns nothing
            log.warning("mcp_origin_refused", origin=headers.get("origin"),
                        host=headers.get("host"))
            await refusal(Forbidden(foreign, loc="header"))(scope, receive, send)
            return
        agent = match_token(bearer(headers.get("authorization")), tokens.items())
        if agent is None:
            await _unauthorized(scope, receive, send)
            return
        if scope["method"] == "POST":  # the SDK's own json.loads would crash on hostile bodies
            body, problem = await reread(receive)
            if body is None:  # the client left, or its body went over the limit (a 413)
                log.info("mcp_body_not_received", agent=agent)
                return
            receive = body
            if problem is not None:
                await _parse_error(problem)(scope, receive, send)
                return
            receive, faults = await without_surrogates(receive)
            scope = {**scope, TEXT_FAULTS: faults}
        session = headers.get("x-askbridge-session") or "main"
        token = _current.set((agent, session))
        closed = asyncio.Event()
        closing = _closed.set(closed)
        try:
            # The SDK hands this scope (as the request) to the tool call the POST carries; its
            # user is the agent, so a session answers only the agent that opened it.
            await sessions.serve(agent, {**scope, STREAM_CLOSED: closed, "user": owner(agent)},
                                 receive, send, manager.handle_request)
        finally:
            closed.set()
            _current.reset(token)
            _closed.reset(closing)

    @asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        try:
            async with manager.run():
                yield
        finally:
            await waits.close()

    return app, lifespan


def owner(agent: str) -> AuthenticatedUser:
    """The agent as the SDK's authenticated user: the SDK binds each session to the user that
    opened it (no token is kept in it: the name is the identity)."""
    return AuthenticatedUser(AccessToken(token="", client_id=agent, scopes=[]))


async def _unauthorized(scope: Scope, receive: Receive, send: Send) -> None:
    await refusal(Unauthorized(NOT_AUTHORIZED))(scope, receive, send)


def _parse_error(msg: str) -> JSONResponse:
    """JSON-RPC's parse error, as the SDK answers any other body it cannot read."""
    return JSONResponse({"jsonrpc": "2.0", "id": None,
                         "error": {"code": PARSE_ERROR, "message": f"Parse error: {msg}"}},
                        status_code=400)
