"""Quorum, as a pure function of the votes so far: one rejection rejects, `needed` approvals
approve, a person counts once (votes are keyed by person), and what the decision records."""

from __future__ import annotations

import secrets
from typing import Any

from bridge.model.approval import ApprovalResult, DecidedBy
from bridge.model.canonical import canonical, payload_hash
from bridge.model.contract import AskResult
from bridge.store.approval_records import ApprovalRecord, AuditDraft, RuleRecord, Verdict, VoteRecord
from bridge.store.records import AnsweredBy, Resolution
from bridge.text.approval_text import DECISION_ID, approved_line, rejected_line

RULE_SECONDS = 3600
"""How long "Allow for 1 h" allows."""


def shown_name(vote: VoteRecord) -> str:
    """Who a status line names: the person, or the platform user no `[[people]]` names."""
    return vote.voter.split("/", 1)[1] if "/" in vote.voter else vote.voter


def new_rule_id() -> str:
    return "r_" + secrets.token_hex(8)


def decide(approval: ApprovalRecord, votes: list[VoteRecord]) -> Verdict | None:
    """The verdict the votes reach, or None while they reach none. Only approvals of the
    arguments waiting now count: an edit replaced the ones earlier approvals were cast on."""
    rejection = next((v for v in votes if v.decision == "reject"), None)
    if rejection is not None:
        return _rejected(approval, rejection)
    approvals = [v for v in votes
                 if v.decision == "approve" and v.payload_hash == approval.payload_hash]
    if len(approvals) < approval.policy.needed:
        return None
    return _approved(approval, approvals)


def _answered_by(vote: VoteRecord) -> AnsweredBy:
    return AnsweredBy(vote.surface, vote.user)


def _rejected(approval: ApprovalRecord, vote: VoteRecord) -> Verdict:
    reason = vote.reason or ""
    result = ApprovalResult.rejected(reason, [DecidedBy(surface=vote.surface, user=vote.user)])
    answers = {DECISION_ID: ["reject"], "by": [shown_name(vote)], "reason": [reason]}
    resolution = Resolution(AskResult.answered(answers),
                            rejected_line([shown_name(vote)], reason, "en"), vote.at,
                            _answered_by(vote))
    return Verdict(result, resolution, None, [_decided(approval, result, vote.at)])


def _approved(approval: ApprovalRecord, votes: list[VoteRecord]) -> Verdict:
    arguments = approval.current
    edited = canonical(arguments) != canonical(approval.request.payload)
    last = votes[-1]
    result = ApprovalResult.approved(arguments, edited, "once",
                                     [DecidedBy(surface=v.surface, user=v.user) for v in votes])
    names = [shown_name(v) for v in votes]
    resolution = Resolution(AskResult.answered({DECISION_ID: ["approve"], "by": names}),
                            approved_line(names, "en"), last.at, _answered_by(last))
    audits = [_decided(approval, result, last.at)]
    rule = _rule(approval, votes, arguments)
    if rule is not None:
        audits.append(AuditDraft("rule_created", approval.id, rule_data(rule), last.at))
    return Verdict(result, resolution, rule, audits)


def _rule(approval: ApprovalRecord, votes: list[VoteRecord],
          arguments: dict[str, Any]) -> RuleRecord | None:
    """The rule "Allow for 1 h" records: it approves later calls with nobody asked, so as many
    of the deciding approvals as the quorum needs must have asked for it (one approver's
    "Allow" beside another's "Approve" approves this call only); any arguments only when
    every one of them chose that."""
    asked = [v for v in votes if v.rule is not None]
    if not asked or len(asked) < approval.policy.needed:
        return None
    vote = asked[-1]
    anything = all(v.rule == "any" for v in asked)
    return RuleRecord(new_rule_id(), approval.agent, approval.request.tool or "",
                      None if anything else payload_hash(arguments), vote.at,
                      vote.at + RULE_SECONDS * 1000, vote.voter, approval.id)


def _decided(approval: ApprovalRecord, result: ApprovalResult, at: int) -> AuditDraft:
    return AuditDraft("decided", approval.id, {"agent": approval.agent, **result.to_json()}, at)


def rule_data(rule: RuleRecord) -> dict[str, Any]:
    return {"ruleId": rule.id, "agent": rule.agent, "tool": rule.tool,
            "payloadHash": rule.payload_hash, "expiresAt": rule.expires_at, "by": rule.created_by}
