"""Approvals in the Control UI: the card's decisions (bound to the payload hash it showed), the
rules in force and their revocation, and the card's view of a pending approval."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import structlog
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from adapters.web.ids import USER, surface_for
from adapters.web.routes import SECURITY_HEADERS, Core, WebRoutes
from bridge import (
    ApprovalDecided,
    BadJson,
    BadText,
    InboundReply,
    QuestionId,
    RuleRevoked,
    UserRef,
    arguments_problems,
    tr,
)
from bridge.http import error_response, read_json

log = structlog.get_logger("askbridge.web")
Reason = Annotated[str, Field(max_length=1000)]


class DecisionBody(BaseModel):
    """`{"decision", "hash", "reason"?, "arguments"?, "scope"?}`: what the card sends."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    decision: Literal["approve", "reject", "allow"]
    hash: str = Field(min_length=6, max_length=64, pattern=r"^[0-9a-fA-F]+$")
    """The payload hash the card showed: a decision on other arguments is refused."""
    reason: Reason = ""
    arguments: dict[str, Any] | None = None
    scope: Literal["arguments", "any"] = "arguments"


def decision_event(approval_id: str, body: DecisionBody, locale: str) -> ApprovalDecided:
    return ApprovalDecided(
        surface=surface_for(), user=UserRef(USER), approval_id=QuestionId(approval_id),
        decision=body.decision, authorized=True, reason=body.reason.strip(),
        arguments=body.arguments, payload_hash=body.hash.lower(),
        any_arguments=body.scope == "any", locale=locale)


def reply_status(reply: InboundReply) -> tuple[int, dict[str, Any]]:
    """200 counted, 409 already decided, 422 refused (stale payload, a reason missing…)."""
    body = {"accepted": reply.accepted, "ended": reply.ended, "message": reply.text or ""}
    if reply.accepted:
        return 200, body
    return (409 if reply.ended else 422), body


class ApprovalRoutes:
    """`POST /ui/api/approvals/{id}/decision`, `GET /ui/api/rules`,
    `POST /ui/api/rules/{id}/revoke`, behind the UI's own guard (session, origin, CSRF)."""

    def __init__(self, ui: WebRoutes) -> None:
        self.guard = ui.guard
        self.locale_of = ui.locale_of

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/ui/api/approvals/{approval_id}/decision", self.guard(self.decide, True),
                  methods=["POST"]),
            Route("/ui/api/rules", self.guard(self.rules, False), methods=["GET"]),
            Route("/ui/api/rules/{rule_id}/revoke", self.guard(self.revoke, True),
                  methods=["POST"]),
        ]

    def _problem(self, status: int, msg: str, loc: str = "request") -> JSONResponse:
        return error_response(status, msg, loc, headers=SECURITY_HEADERS)

    async def decide(self, request: Request, core: Core) -> Response:
        approval_id, locale = request.path_params["approval_id"], self.locale_of(request)
        try:
            body = DecisionBody.model_validate(await read_json(request))
        except BadText as exc:
            return error_response(422, details=[p.model_dump() for p in exc.problems],
                                  headers=SECURITY_HEADERS)
        except (BadJson, ValidationError):
            return self._problem(422, 'Send {"decision": "approve"|"reject"|"allow", "hash": '
                                 '"<the payload hash shown>"}, with "reason" to reject.')
        view = await core.queries.approval_view(QuestionId(approval_id))
        if view is None:
            return self._problem(404, tr(locale, "There is no such approval."))
        if "web" not in view["surfaces"]:
            return self._problem(403, tr(locale, "This approval was not sent to the web UI."))
        if body.arguments is not None and body.decision != "reject":
            schema = view["request"].get("argumentsSchema")
            problems = arguments_problems(body.arguments, schema)
            if problems:  # every problem, each where it is, for the editor to show inline
                return error_response(422, details=[p.model_dump() for p in problems],
                                      headers=SECURITY_HEADERS)
        status, reply = reply_status(await core.sink.approval_decided(
            decision_event(approval_id, body, locale)))
        log.info("web_approval_decision", approval_id=approval_id, decision=body.decision,
                 edited=body.arguments is not None, status=status)
        return JSONResponse(reply, status_code=status, headers=SECURITY_HEADERS)

    async def rules(self, request: Request, core: Core) -> Response:
        found = await core.queries.rules_view()
        return JSONResponse({"rules": [_rule(r) for r in found]}, headers=SECURITY_HEADERS)

    async def revoke(self, request: Request, core: Core) -> Response:
        rule_id = request.path_params["rule_id"]
        reply = await core.sink.rule_revoked(RuleRevoked(
            surface_for(), UserRef(USER), rule_id, locale=self.locale_of(request)))
        log.info("web_rule_revoke", rule_id=rule_id, revoked=reply.accepted)
        status = 200 if reply.accepted else 404
        return JSONResponse({"revoked": reply.accepted, "message": reply.text or ""},
                            status_code=status, headers=SECURITY_HEADERS)


def _rule(view: dict[str, Any]) -> dict[str, Any]:
    return {"id": view["id"], "agent": view["agent"], "tool": view.get("tool"),
            "argumentsHash": view.get("payloadHash"), "expiresAt": view["expiresAt"],
            "revokedAt": view.get("revokedAt")}
