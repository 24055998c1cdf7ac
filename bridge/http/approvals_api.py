"""The approval routes (`/v1`): request (blocking or not), read, long-poll, cancel, the session's
approvals, rules and the audit log; the same bearer tokens and errors as questions."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from bridge.core.approval_reads import approval_view_of, approval_views, audit_view, rule_view
from bridge.core.approvals import Approvals
from bridge.core.audit import verify
from bridge.core.blocking_ask import approve_and_wait
from bridge.http.api import Auth, Routes, wait_disconnect
from bridge.http.bodies import read_json
from bridge.http.openapi import ERROR_TEXT, responses
from bridge.model.approval import parse_approval_request
from bridge.model.errors import Forbidden, NotFound, error_body
from bridge.model.ids import AgentName, QuestionId
from bridge.model.validation import InvalidRequest, Problem, session_key
from bridge.runtime.config import AgentConfig
from bridge.store.approval_records import ApprovalRecord
from bridge.store.records import iso

_BODY = {"requestBody": {"required": True, "content": {"application/json": {
    "schema": {"$ref": "#/components/schemas/ApprovalRequest"}}}}}


def result_json(approval: ApprovalRecord) -> dict[str, Any]:
    return approval.result.to_json() if approval.result else {"status": "pending"}


def add_approvals(routes: Routes, approvals: Approvals, auth: Auth) -> None:
    """Register the approval routes on the `/v1` routes."""
    store = approvals.store

    async def own(request: Request, approval_id: str) -> ApprovalRecord:
        agent = auth.agent(request)
        try:
            approval = await approvals.get(QuestionId(approval_id))
        except NotFound:
            approval = None
        if approval is None or approval.agent != agent.name:
            raise NotFound(f"There is no approval {approval_id!r} for this agent.")
        return approval

    @routes.add("POST", "/sessions/{session}/approve", operation_id="approve",
                openapi_extra=_BODY, summary="Ask a person to approve an action; block until "
                "decided", responses=responses({200: ("ApprovalResult", "Decided, or no answer"),
                                                503: ("Restarting", ERROR_TEXT[503])},
                                               (401, 403, 409, 413, 415, 422)))
    async def approve(request: Request, session: str) -> JSONResponse:
        agent = auth.agent(request)
        key = session_key(session)
        asked = parse_approval_request(await read_json(request))
        outcome, approval = await approve_and_wait(approvals, agent.name, key, asked,
                                                   lambda: wait_disconnect(request))
        if outcome == "restarting":
            body = error_body("restarting", [{"loc": "server", "msg": (
                "askbridge is restarting; the approval stays pending. Poll GET "
                f"/v1/approvals/{approval.id}/result?wait=60 until it is decided.")}])
            return JSONResponse({**body, "id": approval.id}, status_code=503,
                                headers={"Retry-After": "1"})
        return JSONResponse(result_json(approval))

    @routes.add("POST", "/sessions/{session}/approvals", operation_id="create_approval",
                status_code=202, openapi_extra=_BODY, summary="Ask for approval without blocking",
                responses=responses({202: ("ApprovalCreated", "Asked (or approved at once by a "
                                           "rule); poll the result")},
                                    (401, 403, 409, 413, 415, 422)))
    async def create(request: Request, session: str) -> JSONResponse:
        agent = auth.agent(request)
        asked = parse_approval_request(await read_json(request))
        approval = await approvals.request(agent.name, session_key(session), asked, waiting=False)
        return JSONResponse({"id": approval.id, "status": approval.status,
                             "expiresAt": iso(approval.expires_at)}, status_code=202)

    @routes.add("GET", "/approvals/{approval_id}", operation_id="get_approval",
                summary="The whole approval record",
                responses=responses({200: ("ApprovalRecord", "The record")}, (401, 404)))
    async def get(request: Request, approval_id: str) -> JSONResponse:
        return JSONResponse(await approval_view_of(store, await own(request, approval_id)))

    @routes.add("GET", "/approvals/{approval_id}/result", operation_id="get_approval_result",
                summary="Long-poll for the decision",
                responses=responses({200: ("ApprovalResult", "Decided, or no answer"),
                                     202: ("Pending", "Still pending when the wait ended")},
                                    (401, 404, 422)))
    async def result(request: Request, approval_id: str, wait: float = 0) -> JSONResponse:
        approval = await own(request, approval_id)
        if approval.pending and wait > 0:
            approval = await approvals.wait(approval.id, min(wait, 3600.0))
        if approval.pending:
            return JSONResponse({"status": "pending"}, status_code=202)
        return JSONResponse(result_json(approval))

    @routes.add("POST", "/approvals/{approval_id}/cancel", operation_id="cancel_approval",
                summary="Cancel; a decision that won stays",
                responses=responses({200: ("ApprovalResult", "The final result")}, (401, 404)))
    async def cancel(request: Request, approval_id: str) -> JSONResponse:
        approval = await own(request, approval_id)
        return JSONResponse(result_json(await approvals.cancel(approval.id)))

    @routes.add("GET", "/sessions/{session}/approvals", operation_id="get_approval_timeline",
                summary="Every approval of a session, newest first",
                responses=responses({200: ("ApprovalTimeline", "Newest first")}, (401, 422)))
    async def timeline(request: Request, session: str, limit: int = 100) -> JSONResponse:
        agent = auth.agent(request)
        found = await store.approvals_of(AgentName(agent.name), session_key(session),
                                         max(1, min(limit, 1000)))
        return JSONResponse({"session": session,
                             "approvals": await approval_views(store, found)})

    @routes.add("GET", "/rules", operation_id="list_rules", summary="This agent's rules in force",
                responses=responses({200: ("RuleList", "Newest first")}, (401,)))
    async def rules(request: Request) -> JSONResponse:
        agent = auth.agent(request)
        return JSONResponse({"rules": [rule_view(r) for r in
                                       await approvals.rules(AgentName(agent.name))]})

    @routes.add("POST", "/rules/{rule_id}/revoke", operation_id="revoke_rule",
                summary="Revoke one of this agent's rules",
                responses=responses({200: ("Rule", "The rule, revoked")}, (401, 404)))
    async def revoke(request: Request, rule_id: str) -> JSONResponse:
        agent = auth.agent(request)
        rule = await approvals.revoke(rule_id, AgentName(agent.name), f"agent:{agent.name}")
        return JSONResponse(rule_view(rule))

    @routes.add("GET", "/audit", operation_id="get_audit",
                summary="The calling agent's entries of the audit log, in chain order, by page",
                responses=responses({200: ("AuditPage", "Entries after `after`")}, (401, 403, 422)))
    async def audit(request: Request, after: int = 0, limit: int = 1000,
                    since: str = "") -> JSONResponse:
        agent = _main(auth, request)
        size = max(1, min(limit, 5000))
        entries = await store.audit_entries(after, size, since_ms(since))
        anchor = await store.audit_anchor()
        # An agent reads its own entries only: another agent's hold its arguments (which may
        # name secrets). The whole chain is checked by /audit/verify, which shows none.
        own = [e for e in entries if e.data.get("agent") == agent.name]
        return JSONResponse({
            "entries": [audit_view(e) for e in own],
            "anchor": {"seq": anchor[0], "hash": anchor[1]} if anchor else None,
            "next": entries[-1].seq if len(entries) == size else None})

    @routes.add("GET", "/audit/verify", operation_id="verify_audit",
                summary="Check the audit log's hash chain (main agents)",
                responses=responses({200: ("AuditReport", "Whether the chain holds, and where "
                                           "it first breaks")}, (401, 403)))
    async def check(request: Request) -> JSONResponse:
        _main(auth, request)
        return JSONResponse((await verify(store)).to_json())


def _main(auth: Auth, request: Request) -> AgentConfig:
    agent = auth.agent(request)
    if agent.role != "main":
        raise Forbidden("The audit log is for main agents; use a main agent's token.")
    return agent


def since_ms(since: str) -> int | None:
    """`since` as ISO 8601 (`2026-01-31`, `2026-01-31T12:00:00Z`) in ms; a 422 when it is not."""
    if not since:
        return None
    try:
        at = datetime.fromisoformat(since.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidRequest([Problem(loc="query.since", msg="Give `since` as an ISO 8601 "
                                      "time, for example 2026-01-31T12:00:00Z.")]) from None
    return int((at if at.tzinfo else at.replace(tzinfo=UTC)).timestamp() * 1000)
