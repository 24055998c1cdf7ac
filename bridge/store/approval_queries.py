"""Approvals as SQL: an approval with its backing question, votes decided by quorum in the same
transaction as the question's compare-and-set, rules, and the audit entries of each."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from bridge.model.approval import ApprovalResult
from bridge.model.ids import AgentName, QuestionId, SessionKey, SurfaceId, UserRef
from bridge.store import writes
from bridge.store.approval_records import (
    ApprovalRecord,
    AuditDraft,
    AuditEntry,
    Policy,
    RuleRecord,
    Verdict,
    VoteOutcome,
    VoteRecord,
)
from bridge.store.approval_votes import RULE_COLUMNS, Lost, edit_payload, write_verdict
from bridge.store.audit_queries import AuditQueries
from bridge.store.records import PendingConflict, QuestionRecord, TimerRecord
from bridge.store.rows import parse_approval
from bridge.store.writes import Executor, run

APPROVAL_COLUMNS = ("id, agent, session, request, payload_hash, policy, status, result, "
                    "created_at, expires_at, decided_at, arguments")
VOTE_COLUMNS = ("approval_id, voter, surface, user_ref, decision, reason, arguments, "
                "payload_hash, rule, at")
Decide = Callable[[ApprovalRecord, list[VoteRecord]], Verdict | None]
"""The core's quorum: given the approval and every vote so far, the verdict or None."""


class _Backend(Protocol):
    approval_lock: str
    row_lock: str

    def _tx(self) -> AbstractAsyncContextManager[Any]: ...

    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]: ...

    async def _notify(self, db: Any, event: str, question_id: QuestionId) -> None: ...

    def _is_conflict(self, exc: Exception) -> bool: ...

    async def append_audit(self, db: Executor, draft: AuditDraft) -> AuditEntry: ...


def row_to_approval(row: Sequence[Any]) -> ApprovalRecord:
    (aid, agent, session, request, payload_hash, policy, status, result, created_at, expires_at,
     decided_at, arguments) = tuple(row)
    return ApprovalRecord(
        QuestionId(aid), AgentName(agent), SessionKey(session), parse_approval(request),
        payload_hash, Policy.from_json(json.loads(policy)), status, int(created_at),
        int(expires_at), ApprovalResult.model_validate_json(result) if result else None,
        int(decided_at) if decided_at is not None else None,
        json.loads(arguments) if arguments else None)


def row_to_vote(row: Sequence[Any]) -> VoteRecord:
    aid, voter, surface, user, decision, reason, arguments, payload_hash, rule, at = tuple(row)
    return VoteRecord(QuestionId(aid), voter, SurfaceId(surface), UserRef(user), decision,
                      payload_hash, int(at), reason, json.loads(arguments) if arguments else None,
                      rule)


def row_to_rule(row: Sequence[Any]) -> RuleRecord:
    rid, agent, tool, payload_hash, created_at, expires_at, by, aid, revoked_at = tuple(row)
    return RuleRecord(rid, AgentName(agent), tool, payload_hash, int(created_at), int(expires_at),
                      by, QuestionId(aid) if aid else None,
                      int(revoked_at) if revoked_at is not None else None)


def _chunks(ids: Sequence[QuestionId]) -> list[tuple[QuestionId, ...]]:
    """Under every SQLite's limit on bound variables."""
    return [tuple(ids[i:i + 500]) for i in range(0, len(ids), 500)]


def _approval_args(a: ApprovalRecord) -> tuple[Any, ...]:
    return (a.id, a.agent, a.session, a.request.model_dump_json(by_alias=True, exclude_none=True),
            a.payload_hash, json.dumps(a.policy.to_json()), a.status,
            json.dumps(a.result.to_json()) if a.result else None, a.created_at, a.expires_at,
            a.decided_at, json.dumps(a.arguments) if a.arguments is not None else None)


INSERT_APPROVAL = (f"INSERT INTO approvals ({APPROVAL_COLUMNS}) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


class ApprovalQueries(AuditQueries):
    """The `Store` approval and audit methods for any SQL backend."""

    approval_lock = ""
    """Appended to the read of the approval a vote is for: how a backend with several writers
    makes concurrent votes on one approval take turns (PostgreSQL: `FOR UPDATE`)."""

    async def create_approval(self: _Backend, question: QuestionRecord, surfaces: list[SurfaceId],
                              timers: Sequence[TimerRecord], approval: ApprovalRecord,
                              audit: AuditDraft) -> None:
        """The backing question (with its deliveries and timers), the approval and its
        `requested` entry, in one transaction. `PendingConflict` when the session is busy."""
        ask = writes.create_question(question, surfaces, timers)
        try:
            async with self._tx() as db:
                await run(db, ask.first)
                await db.execute("UPDATE questions SET approval = ? WHERE id = ?",
                                 (approval.request.model_dump_json(by_alias=True,
                                                                   exclude_none=True),
                                  question.id))
                await db.execute(INSERT_APPROVAL, _approval_args(approval))
                await self.append_audit(db, audit)
                await self._notify(db, "created", question.id)
        except Exception as exc:
            if self._is_conflict(exc):
                raise PendingConflict(question.session) from exc
            raise

    async def record_approval(self: _Backend, approval: ApprovalRecord,
                              audits: Sequence[AuditDraft]) -> None:
        """An approval decided at once (a rule matched): no question, nothing delivered."""
        async with self._tx() as db:
            await db.execute(INSERT_APPROVAL, _approval_args(approval))
            for draft in audits:
                await self.append_audit(db, draft)

    async def get_approval(self: _Backend, approval_id: QuestionId) -> ApprovalRecord | None:
        rows = await self._rows(f"SELECT {APPROVAL_COLUMNS} FROM approvals WHERE id = ?",
                                (approval_id,))
        return row_to_approval(rows[0]) if rows else None

    async def approvals_of(self: _Backend, agent: AgentName, session: SessionKey,
                           limit: int = 100) -> list[ApprovalRecord]:
        """A session's approvals, newest first."""
        rows = await self._rows(
            f"SELECT {APPROVAL_COLUMNS} FROM approvals WHERE agent = ? AND session = ? "
            "ORDER BY created_at DESC, id DESC LIMIT ?", (agent, session, limit))
        return [row_to_approval(r) for r in rows]

    async def approvals_for(self: _Backend, ids: Sequence[QuestionId],
                            ) -> dict[QuestionId, ApprovalRecord]:
        """The approvals among `ids` (a page of a timeline), in one read per 500."""
        found: dict[QuestionId, ApprovalRecord] = {}
        for chunk in _chunks(ids):
            rows = await self._rows(f"SELECT {APPROVAL_COLUMNS} FROM approvals WHERE id IN "
                                    f"({', '.join('?' * len(chunk))})", chunk)
            found.update((a.id, a) for a in map(row_to_approval, rows))
        return found

    async def votes_for(self: _Backend, ids: Sequence[QuestionId],
                        ) -> dict[QuestionId, list[VoteRecord]]:
        """The votes of each of `ids`, in one read per 500."""
        found: dict[QuestionId, list[VoteRecord]] = {i: [] for i in ids}
        for chunk in _chunks(ids):
            rows = await self._rows(f"SELECT {VOTE_COLUMNS} FROM approval_votes WHERE "
                                    f"approval_id IN ({', '.join('?' * len(chunk))}) "
                                    "ORDER BY approval_id, at, voter", chunk)
            for vote in map(row_to_vote, rows):
                found[vote.approval_id].append(vote)
        return found

    async def votes(self: _Backend, approval_id: QuestionId) -> list[VoteRecord]:
        rows = await self._rows(f"SELECT {VOTE_COLUMNS} FROM approval_votes WHERE approval_id = ? "
                                "ORDER BY at, voter", (approval_id,))
        return [row_to_vote(r) for r in rows]

    async def cast_vote(self: _Backend, vote: VoteRecord, audit: AuditDraft,
                        decide: Decide) -> tuple[VoteOutcome, Verdict | None]:
        """Record `vote` once per voter and let `decide` judge every vote so far; a verdict
        ends the backing question (compare-and-set) and writes the approval's result, its
        rule and its entries, all in this one transaction: exactly once across replicas."""
        try:
            async with self._tx() as db:
                return await _vote(self, db, vote, audit, decide)
        except Lost:
            return "lost", None

    async def settle_approval(self: _Backend, approval_id: QuestionId, result: ApprovalResult,
                              at: int, audit: AuditDraft) -> bool:
        """Write a result not reached by votes (no_answer) once; True for the one that wrote it."""
        async with self._tx() as db:
            changed = await db.execute(
                "UPDATE approvals SET status = ?, result = ?, decided_at = ? "
                "WHERE id = ? AND status = 'pending'",
                (result.status, json.dumps(result.to_json()), at, approval_id))
            if changed:
                await self.append_audit(db, audit)
            return bool(changed)

    async def delete_old_approvals(self: _Backend, before: int, limit: int) -> int:
        """Retention: delete up to `limit` approvals decided before `before` (ms) with their
        votes, and rules that ended by then; their audit entries stay (`audit_keep`)."""
        async with self._tx() as db:
            rows = await db.rows(
                "SELECT id FROM approvals WHERE status <> 'pending' AND decided_at < ? "
                "ORDER BY decided_at LIMIT ?" + self.row_lock, (before, limit))
            ids = [r[0] for r in rows]
            if ids:
                marks = ", ".join("?" * len(ids))
                await db.execute(f"DELETE FROM approval_votes WHERE approval_id IN ({marks})", ids)
                await db.execute(f"DELETE FROM approvals WHERE id IN ({marks})", ids)
            await db.execute("DELETE FROM approval_rules WHERE expires_at < ? OR revoked_at < ?",
                             (before, before))
            return len(ids)

    async def active_rule(self: _Backend, agent: AgentName, tool: str, payload_hash: str,
                          now: int) -> RuleRecord | None:
        """A rule in force for this agent's call of `tool` with these arguments (or any)."""
        rows = await self._rows(
            f"SELECT {RULE_COLUMNS} FROM approval_rules WHERE agent = ? AND tool = ? "
            "AND expires_at > ? AND revoked_at IS NULL "
            "AND (payload_hash IS NULL OR payload_hash = ?) ORDER BY created_at LIMIT 1",
            (agent, tool, now, payload_hash))
        return row_to_rule(rows[0]) if rows else None

    async def rules(self: _Backend, agent: AgentName | None, now: int) -> list[RuleRecord]:
        """Rules in force (of one agent, or all), newest first."""
        rows = await self._rows(
            f"SELECT {RULE_COLUMNS} FROM approval_rules WHERE expires_at > ? AND revoked_at IS "
            "NULL AND (? = '' OR agent = ?) ORDER BY created_at DESC", (now, agent or "", agent or ""))
        return [row_to_rule(r) for r in rows]

    async def get_rule(self: _Backend, rule_id: str) -> RuleRecord | None:
        rows = await self._rows(f"SELECT {RULE_COLUMNS} FROM approval_rules WHERE id = ?",
                                (rule_id,))
        return row_to_rule(rows[0]) if rows else None

    async def revoke_rule(self: _Backend, rule_id: str, at: int, audit: AuditDraft) -> bool:
        """End a rule now; True for the one caller that revoked it (its entry appended)."""
        async with self._tx() as db:
            changed = await db.execute(
                "UPDATE approval_rules SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                (at, rule_id))
            if changed:
                await self.append_audit(db, audit)
            return bool(changed)


async def _vote(store: _Backend, db: Executor, vote: VoteRecord, audit: AuditDraft,
                decide: Decide) -> tuple[VoteOutcome, Verdict | None]:
    rows = await db.rows(f"SELECT {APPROVAL_COLUMNS} FROM approvals WHERE id = ?"
                         + store.approval_lock, (vote.approval_id,))
    approval = row_to_approval(rows[0]) if rows else None
    if approval is None or not approval.pending:
        return "ended", None
    backing = await db.rows("SELECT status FROM questions WHERE id = ?", (vote.approval_id,))
    if backing and backing[0][0] != "pending":
        return "ended", None
    if (vote.base_hash or vote.payload_hash) != approval.payload_hash:
        return "stale", None
    # A vote on earlier arguments (before an edit) no longer counts: this one replaces it.
    added = await db.execute(
        f"INSERT INTO approval_votes ({VOTE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (approval_id, voter) DO UPDATE SET surface = excluded.surface, "
        "user_ref = excluded.user_ref, decision = excluded.decision, reason = excluded.reason, "
        "arguments = excluded.arguments, payload_hash = excluded.payload_hash, "
        "rule = excluded.rule, at = excluded.at "
        "WHERE approval_votes.payload_hash <> excluded.payload_hash",
        (vote.approval_id, vote.voter, vote.surface, vote.user, vote.decision, vote.reason,
         json.dumps(vote.arguments) if vote.arguments is not None else None, vote.payload_hash,
         vote.rule, vote.at))
    if not added:
        return "already", None
    await store.append_audit(db, audit)
    edited = vote.payload_hash != approval.payload_hash
    if edited:
        approval = await edit_payload(store, db, approval, vote)
    votes = [row_to_vote(r) for r in await db.rows(
        f"SELECT {VOTE_COLUMNS} FROM approval_votes WHERE approval_id = ? ORDER BY at, voter",
        (vote.approval_id,))]
    verdict = decide(approval, votes)
    if verdict is None:
        if edited:
            await store._notify(db, "edited", approval.id)
        return "edited" if edited else "counted", None
    await write_verdict(store, db, approval, verdict, vote.at, bool(backing))
    return "decided", verdict
