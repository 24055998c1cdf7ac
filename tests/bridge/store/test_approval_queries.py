"""The approval half of the store, on every backend: an approval with its backing question,
votes counted once per voter and decided exactly once, rules, and the audit chain."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from bridge.core.audit import verify
from bridge.core.quorum import decide
from bridge.model.approval import ApprovalResult, parse_approval_request
from bridge.model.canonical import payload_hash
from bridge.model.contract import AskRequest
from bridge.model.ids import AgentName, QuestionId, SessionKey, SurfaceId, UserRef
from bridge.store import PendingConflict, QuestionRecord, Store, now_ms
from bridge.store.approval_records import ApprovalRecord, AuditDraft, Policy, VoteRecord
from tests.bridge.store.support import SURFACES

REQUEST = parse_approval_request({"action": "Deploy web", "tool": "deploy",
                                  "arguments": {"env": "production"}})
BACKING = AskRequest.model_validate({"questions": [{
    "id": "decision", "header": "Approval", "question": "Deploy web",
    "options": [{"label": "Approve"}, {"label": "Reject"}, {"label": "Allow for 1 h"}]}]})


async def asked(store: Store, qid: str, needed: int = 1, session: str = "main") -> ApprovalRecord:
    created = now_ms()
    question = QuestionRecord(QuestionId(qid), AgentName("a"), SessionKey(session), BACKING,
                              "pending", created, created + 60_000, approval=REQUEST)
    approval = ApprovalRecord(question.id, question.agent, question.session, REQUEST,
                              REQUEST.payload_hash, Policy(needed=needed), "pending", created,
                              created + 60_000)
    await store.create_approval(question, SURFACES, [], approval,
                                AuditDraft("requested", question.id, {"agent": "a"}, created))
    return approval


def vote(qid: str, voter: str, decision: Any = "approve", reason: str | None = None) -> VoteRecord:
    return VoteRecord(QuestionId(qid), voter, SurfaceId("telegram:1"), UserRef(voter), decision,
                      REQUEST.payload_hash, now_ms(), reason)


def voted(qid: str) -> AuditDraft:
    return AuditDraft("voted", QuestionId(qid), {"agent": "a"}, now_ms())


async def test_an_approval_is_stored_with_its_backing_question(store: Store) -> None:
    await asked(store, "q_a1")
    question = await store.get_question(QuestionId("q_a1"))
    assert question is not None and question.approval == REQUEST
    approval = await store.get_approval(QuestionId("q_a1"))
    assert approval is not None and approval.pending and approval.payload_hash == REQUEST.payload_hash
    with pytest.raises(PendingConflict):  # one pending thing per session, approval or question
        await asked(store, "q_a2")


async def test_votes_count_once_per_voter_and_decide_once(store: Store) -> None:
    await asked(store, "q_b1", needed=2)
    assert (await store.cast_vote(vote("q_b1", "ana"), voted("q_b1"), decide))[0] == "counted"
    assert (await store.cast_vote(vote("q_b1", "ana"), voted("q_b1"), decide))[0] == "already"
    outcome, verdict = await store.cast_vote(vote("q_b1", "budi"), voted("q_b1"), decide)
    assert outcome == "decided" and verdict is not None
    assert verdict.result.status == "approved"
    approval = await store.get_approval(QuestionId("q_b1"))
    assert approval is not None and approval.status == "approved"
    question = await store.get_question(QuestionId("q_b1"))
    assert question is not None and question.status == "answered"
    assert (await store.cast_vote(vote("q_b1", "cita"), voted("q_b1"), decide))[0] == "ended"
    kinds = [e.kind for e in await store.audit_entries()]
    assert kinds == ["requested", "voted", "voted", "decided"]


async def test_concurrent_votes_reach_one_decision(store: Store) -> None:
    await asked(store, "q_c1", needed=2)
    outcomes = await asyncio.gather(*(
        store.cast_vote(vote("q_c1", f"p{n}"), voted("q_c1"), decide) for n in range(6)))
    found = sorted(o for o, _ in outcomes)
    assert found.count("decided") == 1 and found.count("counted") == 1
    assert found.count("ended") == 4
    assert (await verify(store)).ok


async def test_a_rejection_rejects_at_once(store: Store) -> None:
    await asked(store, "q_d1", needed=3)
    outcome, verdict = await store.cast_vote(vote("q_d1", "ana", "reject", "too risky"),
                                             voted("q_d1"), decide)
    assert outcome == "decided" and verdict is not None
    assert verdict.result == ApprovalResult.rejected("too risky", verdict.result.decided_by or [])


async def test_a_tampered_entry_is_named_by_verify(store: Store) -> None:
    for n in range(3):
        await asked(store, f"q_e{n}", session=f"s{n}")
    assert (await verify(store)).ok
    sql = "UPDATE audit SET data = ? WHERE seq = 2"
    async with store.transaction() as db:  # type: ignore[attr-defined]
        await db.execute(sql, ('{"agent":"mallory"}',))
    report = await verify(store)
    assert not report.ok and report.broken_at == 2
    assert "changed after it was written" in (report.problem or "")


async def test_retention_keeps_the_chain_verifiable_from_its_new_head(store: Store) -> None:
    for n in range(5):
        await asked(store, f"q_f{n}", session=f"s{n}")
    entries = await store.audit_entries()
    assert await store.delete_old_audit(entries[2].at + 1, 100) >= 3
    left = await store.audit_entries()
    assert left and left[0].seq > 1
    assert await store.audit_anchor() == (left[0].seq - 1, left[0].prev)
    assert (await verify(store)).ok
    await asked(store, "q_f9", session="s9")  # the head grows on from the kept chain
    assert (await verify(store)).ok


async def test_rules_match_until_revoked(store: Store) -> None:
    await asked(store, "q_g1")
    allow = vote("q_g1", "ana")
    allow = VoteRecord(allow.approval_id, allow.voter, allow.surface, allow.user, "approve",
                       allow.payload_hash, allow.at, rule="arguments")
    outcome, verdict = await store.cast_vote(allow, voted("q_g1"), decide)
    assert outcome == "decided" and verdict is not None and verdict.rule is not None
    agent = AgentName("a")
    rule = await store.active_rule(agent, "deploy", REQUEST.payload_hash, now_ms())
    assert rule is not None and rule.id == verdict.rule.id
    assert await store.active_rule(agent, "deploy", "0" * 64, now_ms()) is None
    assert await store.active_rule(agent, "deploy", REQUEST.payload_hash,
                                   rule.expires_at + 1) is None
    revoked = AuditDraft("rule_revoked", None, {"ruleId": rule.id}, now_ms())
    assert await store.revoke_rule(rule.id, now_ms(), revoked)
    assert not await store.revoke_rule(rule.id, now_ms(), revoked)
    assert await store.rules(agent, now_ms()) == []
    assert [e.kind for e in await store.audit_entries()][-2:] == ["rule_created", "rule_revoked"]


async def test_retention_deletes_decided_approvals_with_their_votes(store: Store) -> None:
    await asked(store, "q_h1", session="s1")
    await asked(store, "q_h2", session="s2")
    await store.cast_vote(vote("q_h1", "ana"), voted("q_h1"), decide)
    assert await store.delete_old_approvals(now_ms() + 1, 10) == 1
    assert await store.get_approval(QuestionId("q_h1")) is None
    assert await store.votes(QuestionId("q_h1")) == []
    assert await store.get_approval(QuestionId("q_h2")) is not None  # pending: kept
    assert (await verify(store)).ok  # the audit is audit_keep's


async def test_an_entry_holding_a_float_beyond_2_to_the_53_verifies(store: Store) -> None:
    # RFC 8785 writes 5.436547873811979e16 as 54365478738119790: read back, it must stay a float.
    async with store.transaction() as db:  # type: ignore[attr-defined]
        draft = AuditDraft("requested", QuestionId("q_i1"),
                           {"arguments": {"n": 5.436547873811979e16}}, now_ms())
        await store.append_audit(db, draft)  # type: ignore[attr-defined]
    assert (await verify(store)).ok


async def test_an_edit_moves_the_approval_to_its_arguments(store: Store) -> None:
    await asked(store, "q_e1", needed=2)
    old = REQUEST.payload_hash
    assert (await store.cast_vote(vote("q_e1", "ana"), voted("q_e1"), decide))[0] == "counted"
    edited = {"env": "staging"}
    new = payload_hash(edited)
    edit = replace(vote("q_e1", "budi"), payload_hash=new, arguments=edited, base_hash=old)
    assert (await store.cast_vote(edit, voted("q_e1"), decide))[0] == "edited"
    approval = await store.get_approval(QuestionId("q_e1"))
    assert approval is not None and approval.payload_hash == new and approval.current == edited
    assert approval.request == REQUEST  # what was asked stays as asked
    question = await store.get_question(QuestionId("q_e1"))
    assert question is not None and question.approval is not None
    assert question.approval.arguments == edited  # what every prompt shows now
    assert (await store.cast_vote(vote("q_e1", "cita"), voted("q_e1"), decide))[0] == "stale"
    again = replace(vote("q_e1", "ana"), payload_hash=new)  # ana approves the new ones
    outcome, verdict = await store.cast_vote(again, voted("q_e1"), decide)
    assert outcome == "decided" and verdict is not None
    assert verdict.result.arguments == edited and verdict.result.edited is True
    assert [d.user for d in verdict.result.decided_by or []] == ["budi", "ana"]
    kinds = [e.kind for e in await store.audit_entries()]
    assert kinds == ["requested", "voted", "voted", "edited", "voted", "decided"]
    assert (await verify(store)).ok
