"""Approvals as the HTTP API, MCP and event hooks show them (camelCase, ISO 8601 UTC)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bridge.core.reads import delivery_view
from bridge.model.approval import ApprovalResult
from bridge.store.approval_records import ApprovalRecord, AuditEntry, RuleRecord, VoteRecord
from bridge.store.protocol import Store
from bridge.store.records import DeliveryRecord, QuestionRecord, iso


def vote_view(vote: VoteRecord) -> dict[str, Any]:
    return {"voter": vote.voter, "surface": vote.surface, "user": vote.user,
            "decision": vote.decision, "reason": vote.reason, "edited": vote.arguments is not None,
            "rule": vote.rule, "payloadHash": vote.payload_hash, "at": iso(vote.at)}


def approval_view(approval: ApprovalRecord, votes: list[VoteRecord],
                  deliveries: list[DeliveryRecord]) -> dict[str, Any]:
    """The whole record: request, payload hash, policy, votes, deliveries and the result."""
    result = approval.result.to_json() if approval.result else None
    shown = approval.request  # with the arguments waiting now: an edit's, once there was one
    if approval.arguments is not None:
        shown = shown.model_copy(update={"arguments": approval.arguments})
    view: dict[str, Any] = {
        "id": approval.id,
        "kind": "approval",
        "agent": approval.agent,
        "session": approval.session,
        "status": approval.status,
        "request": shown.model_dump(mode="json", by_alias=True, exclude_none=True),
        "payloadHash": approval.payload_hash,
        "policy": {"approvers": list(approval.policy.approvers),
                   "required": approval.policy.needed,
                   "excludeRequester": approval.policy.exclude_requester},
        "votes": [vote_view(v) for v in votes],
        "surfaces": [d.surface for d in deliveries],
        "deliveries": [delivery_view(d) for d in deliveries],
        "createdAt": iso(approval.created_at),
        "expiresAt": iso(approval.expires_at),
        "decidedAt": iso(approval.decided_at),
        "result": result,
    }
    if result and result["status"] == "no_answer":
        view["reason"] = result["reason"]
    return view


def settled(approval: ApprovalRecord, question: QuestionRecord | None) -> ApprovalRecord:
    """The approval as its backing question says it ended, while the no_answer it settles to is
    still being written (an event hook reads it in that moment)."""
    if not approval.pending or question is None or question.result is None:
        return approval
    reason = question.result.reason
    if question.result.status != "no_answer" or reason not in ("expired", "cancelled",
                                                                 "undelivered"):
        return approval
    return replace(approval, status="no_answer", decided_at=question.resolved_at,
                   result=ApprovalResult.no_answer(reason))


async def approval_view_of(store: Store, approval: ApprovalRecord,
                           question: QuestionRecord | None = None) -> dict[str, Any]:
    return approval_view(settled(approval, question), await store.votes(approval.id),
                         await store.deliveries(approval.id))


async def approval_views(store: Store, approvals: Sequence[ApprovalRecord]) -> list[dict[str, Any]]:
    """A page of approvals as records, in a fixed number of reads however long the page: their
    votes and deliveries together, and the backing question only of a pending one (at most one
    per session) in case it has just ended."""
    ids = [a.id for a in approvals]
    votes = await store.votes_for(ids)
    deliveries = await store.deliveries_for(ids)
    views = []
    for a in approvals:
        question = await store.get_question(a.id) if a.pending else None
        views.append(approval_view(settled(a, question), votes[a.id], deliveries[a.id]))
    return views


def rule_view(rule: RuleRecord) -> dict[str, Any]:
    return {"id": rule.id, "agent": rule.agent, "tool": rule.tool or None,
            "payloadHash": rule.payload_hash, "anyArguments": rule.payload_hash is None,
            "createdAt": iso(rule.created_at), "expiresAt": iso(rule.expires_at),
            "createdBy": rule.created_by, "approvalId": rule.approval_id,
            "revokedAt": iso(rule.revoked_at)}


def audit_view(entry: AuditEntry) -> dict[str, Any]:
    """One entry as exported: the stored fields (`at` in ms, as hashed) and `time` (ISO)."""
    return {**entry.to_json(), "time": iso(entry.at)}
