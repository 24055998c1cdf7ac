"""How the approval tools reach the approvals core: in-process for /mcp, over HTTP for
`askbridge mcp`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from bridge.agent.client import AskClient, AskError, unreachable
from bridge.core.approvals import Approvals
from bridge.core.blocking_ask import Outcome, approve_and_wait
from bridge.mcp.approval_tools import waiting
from bridge.mcp.tool import AskFailure, Progress
from bridge.mcp.waits import Restarting, Waits
from bridge.model.approval import ApprovalRequest, parse_approval_request
from bridge.model.contract import DEFAULT_TIMEOUT, MAX_TIMEOUT, MIN_TIMEOUT
from bridge.model.errors import NOT_AUTHORIZED, BridgeError
from bridge.model.ids import SessionKey
from bridge.model.validation import InvalidRequest, Problem, session_key
from bridge.store.approval_records import ApprovalRecord


def total_seconds(body: dict[str, Any]) -> int:
    """How long the approval may wait, for progress notifications (the server decides)."""
    asked = body.get("timeoutSeconds")
    if isinstance(asked, int) and not isinstance(asked, bool):
        return min(max(asked, MIN_TIMEOUT), MAX_TIMEOUT)
    return DEFAULT_TIMEOUT


class HttpApprover:
    """Approvals through a running askbridge's HTTP API, as the agent whose token it holds."""

    def __init__(self, client: AskClient, interval: float) -> None:
        self.client = client
        self.interval = interval

    async def approve(self, body: dict[str, Any], progress: Progress,
                      modern: bool = False) -> dict[str, Any]:
        """(`modern` does not apply: `askbridge mcp` is the host's child, its end the stop.)"""
        try:
            result = await waiting(self._approve(body), progress, self.interval,
                                   total_seconds(body))
        except AskError as exc:
            if exc.status == 401:
                raise AskFailure(f"{NOT_AUTHORIZED} askbridge mcp sends the value of "
                                 "ASKBRIDGE_TOKEN (or --token): set it to the agent's token."
                                 ) from None
            if exc.status == 422:
                raise InvalidRequest([Problem(loc=d.get("loc", "body"), msg=d.get("msg", ""))
                                      for d in exc.details]) from None
            raise AskFailure(" ".join(d.get("msg", "") for d in exc.details) or str(exc)) from None
        except httpx.TransportError:
            raise AskFailure(unreachable(self.client.url)) from None
        return result

    async def _approve(self, body: dict[str, Any]) -> dict[str, Any]:
        return (await self.client.approve_body(body)).to_json()


class BrokerApprover:
    """Approvals in-process, for the agent and session of the /mcp request, waited for as an
    `ask_user` call of the same revision waits: 2025-11-25, `gone` returns once the caller has
    left (which cancels the approval); 2026-07-28, a broken stream is not a stop, and the
    approval is cancelled once no call has waited on it for `[mcp] reattach_seconds` (`waits`;
    the host's call again re-attaches to it)."""

    def __init__(self, approvals: Approvals, agent: str, session: str,
                 gone: Callable[[], Awaitable[None]], interval: float,
                 waits: Waits | None = None) -> None:
        self.approvals = approvals
        self.agent = agent
        self.session = session
        self.gone = gone
        self.interval = interval
        self.waits = waits

    async def approve(self, body: dict[str, Any], progress: Progress,
                      modern: bool = False) -> dict[str, Any]:
        request = parse_approval_request(body)
        session = session_key(self.session)  # a bad header is the same refusal as over /v1
        return await waiting(self._decided(session, request, modern), progress, self.interval,
                             request.timeout_seconds)

    async def _stateless(self, session: SessionKey, request: ApprovalRequest,
                         waits: Waits) -> tuple[Outcome, ApprovalRecord]:
        approval = await self.approvals.request(self.agent, session, request)
        if approval.pending:
            try:
                await waits.stateless_era(await self.approvals.broker.get(approval.id))
            except Restarting:
                return "restarting", approval
        return "ended", await self.approvals.get(approval.id)

    async def _decided(self, session: SessionKey, request: ApprovalRequest,
                       modern: bool) -> dict[str, Any]:
        try:
            if modern and self.waits is not None:
                outcome, approval = await self._stateless(session, request, self.waits)
            else:
                outcome, approval = await approve_and_wait(self.approvals, self.agent, session,
                                                           request, self.gone)
            if outcome == "restarting":
                raise AskFailure(f"askbridge is restarting; approval {approval.id} stays "
                                 "pending. Call request_approval again with the same request "
                                 "to pick up its decision.")
        except BridgeError as exc:
            raise AskFailure(str(exc)) from None
        assert approval.result is not None
        return approval.result.to_json()
