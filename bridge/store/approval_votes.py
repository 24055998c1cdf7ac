"""Writes a vote makes beyond itself: an edit moving the approval to new arguments, and a
verdict ending the backing question with the approval's result, rule and entries."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Protocol

from bridge.model.ids import QuestionId
from bridge.store import writes
from bridge.store.approval_records import (
    ApprovalRecord,
    AuditDraft,
    AuditEntry,
    Verdict,
    VoteRecord,
)
from bridge.store.writes import Executor, run

RULE_COLUMNS = ("id, agent, tool, payload_hash, created_at, expires_at, created_by, "
                "approval_id, revoked_at")


class Lost(Exception):
    """The backing question ended in the same moment: the vote's transaction is undone."""


class _Writer(Protocol):
    async def _notify(self, db: Any, event: str, question_id: QuestionId) -> None: ...

    async def append_audit(self, db: Executor, draft: AuditDraft) -> AuditEntry: ...


async def edit_payload(store: _Writer, db: Executor, approval: ApprovalRecord,
                vote: VoteRecord) -> ApprovalRecord:
    """The vote proposed new arguments: they are what is waiting for approval now (and what
    every prompt of the backing question shows)."""
    assert vote.arguments is not None
    shown = approval.request.model_copy(update={"arguments": vote.arguments})
    await db.execute("UPDATE approvals SET payload_hash = ?, arguments = ? WHERE id = ?",
                     (vote.payload_hash, json.dumps(vote.arguments), approval.id))
    await db.execute("UPDATE questions SET approval = ? WHERE id = ?",
                     (shown.model_dump_json(by_alias=True, exclude_none=True), approval.id))
    await store.append_audit(db, AuditDraft("edited", approval.id, {
        "agent": approval.agent, "by": vote.voter, "surface": vote.surface, "user": vote.user,
        "from": approval.payload_hash, "payloadHash": vote.payload_hash,
        "arguments": vote.arguments}, vote.at))
    return replace(approval, payload_hash=vote.payload_hash, arguments=vote.arguments)


async def write_verdict(store: _Writer, db: Executor, approval: ApprovalRecord, verdict: Verdict,
                   at: int, backing: bool) -> None:
    if verdict.resolution is not None and backing:
        if not await run(db, writes.resolve(approval.id, verdict.resolution).first):
            raise Lost
    await db.execute("UPDATE approvals SET status = ?, result = ?, decided_at = ? WHERE id = ?",
                     (verdict.result.status, json.dumps(verdict.result.to_json()), at,
                      approval.id))
    if verdict.rule is not None:
        r = verdict.rule
        await db.execute(f"INSERT INTO approval_rules ({RULE_COLUMNS}) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (r.id, r.agent, r.tool, r.payload_hash, r.created_at, r.expires_at,
                          r.created_by, r.approval_id, None))
    for draft in verdict.audits:
        await store.append_audit(db, draft)
    await store._notify(db, "resolved", approval.id)
