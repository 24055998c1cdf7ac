"""The approval half of the `Store` protocol: approvals, votes, rules and the audit log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from bridge.model.approval import ApprovalResult
from bridge.model.ids import AgentName, QuestionId, SessionKey, SurfaceId
from bridge.store.approval_queries import Decide
from bridge.store.approval_records import (
    ApprovalRecord,
    AuditDraft,
    AuditEntry,
    RuleRecord,
    Verdict,
    VoteOutcome,
    VoteRecord,
)
from bridge.store.records import QuestionRecord, TimerRecord


class ApprovalStore(Protocol):
    """Every backend passes `tests/bridge/store/test_approval_queries.py`."""

    async def create_approval(self, question: QuestionRecord, surfaces: list[SurfaceId],
                              timers: Sequence[TimerRecord], approval: ApprovalRecord,
                              audit: AuditDraft) -> None:
        """The backing question, its deliveries and timers, the approval and its `requested`
        entry, atomically; `PendingConflict` when (agent, session) has something pending."""
        ...

    async def record_approval(self, approval: ApprovalRecord,
                              audits: Sequence[AuditDraft]) -> None:
        """An approval already decided (a rule matched), with its entries."""
        ...

    async def get_approval(self, approval_id: QuestionId) -> ApprovalRecord | None: ...

    async def approvals_of(self, agent: AgentName, session: SessionKey,
                           limit: int = 100) -> list[ApprovalRecord]:
        """A session's approvals, newest first."""
        ...

    async def approvals_for(self, ids: Sequence[QuestionId]) -> dict[QuestionId, ApprovalRecord]:
        """The approvals among `ids`, read together (a timeline page's)."""
        ...

    async def votes_for(self, ids: Sequence[QuestionId]) -> dict[QuestionId, list[VoteRecord]]:
        """Each approval's votes (in the order cast), read together."""
        ...

    async def votes(self, approval_id: QuestionId) -> list[VoteRecord]: ...

    async def cast_vote(self, vote: VoteRecord, audit: AuditDraft,
                        decide: Decide) -> tuple[VoteOutcome, Verdict | None]:
        """Record the vote once per voter; a verdict from `decide` ends the backing question and
        writes the result, rule and entries in the same transaction (exactly once)."""
        ...

    async def settle_approval(self, approval_id: QuestionId, result: ApprovalResult, at: int,
                              audit: AuditDraft) -> bool:
        """Write a no_answer result once (the backing question expired or was cancelled)."""
        ...

    async def delete_old_approvals(self, before: int, limit: int) -> int:
        """Retention: approvals decided before `before` (ms), with their votes, and ended rules."""
        ...

    async def active_rule(self, agent: AgentName, tool: str, payload_hash: str,
                          now: int) -> RuleRecord | None: ...

    async def rules(self, agent: AgentName | None, now: int) -> list[RuleRecord]:
        """Rules in force, newest first (one agent's, or every one with None)."""
        ...

    async def get_rule(self, rule_id: str) -> RuleRecord | None: ...

    async def revoke_rule(self, rule_id: str, at: int, audit: AuditDraft) -> bool:
        """True for the one caller that revoked it."""
        ...

    async def audit_entries(self, after: int = 0, limit: int = 1000,
                            since: int | None = None) -> list[AuditEntry]:
        """Entries after `seq` `after` (written at or after `since`, ms), in chain order."""
        ...

    async def audit_anchor(self) -> tuple[int, str] | None:
        """(seq, hash) of the last entry retention deleted; None when none was."""
        ...

    async def delete_old_audit(self, before: int, limit: int) -> int:
        """Retention: delete the oldest entries written before `before` (ms), moving the
        anchor; how many went."""
        ...
