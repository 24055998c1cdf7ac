"""Approvals: a request rides on a backing question (delivery, reminders, escalation, the
session rule and re-attach come with it); an answer to it is a vote, checked here and decided
by quorum in the store, exactly once; a matching rule approves at once."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import structlog

from bridge.core.ballots import Ballot, Ballots
from bridge.core.broker import Broker, new_question_id
from bridge.core.quorum import shown_name
from bridge.core.reshow import reshow, shown_late
from bridge.model.approval import ApprovalNoAnswer, ApprovalRequest, ApprovalResult, DecidedBy
from bridge.model.contract import AskRequest
from bridge.model.errors import Conflict, Forbidden, NotFound
from bridge.model.ids import AgentName, QuestionId, SessionKey, SurfaceId, UserRef
from bridge.runtime.config import AgentConfig
from bridge.runtime.people import ApprovalPolicy, People
from bridge.store.approval_records import (
    ApprovalRecord,
    AuditDraft,
    Policy,
    RuleRecord,
    VoteRecord,
)
from bridge.store.protocol import Store
from bridge.store.records import QuestionRecord, TimerRecord, now_ms
from bridge.text.approval_text import DECISION_ID, HEADER, option_labels
from bridge.text.i18n import tr

log = structlog.get_logger("askbridge.approvals")

SUBAGENT = ("request_approval is only for main sessions; this agent is a subagent. Report the "
            "action to the main agent, which can ask for approval.")


def policy_for(policies: Sequence[ApprovalPolicy], agent: AgentConfig, request: ApprovalRequest,
               ) -> Policy:
    """The first `[[approvals]]` policy matching the request, as kept with it; without one,
    one approval from any answerer decides."""
    for policy in policies:
        if policy.matches(agent.name, request.tool, request.risk):
            return Policy(tuple(policy.approvers), policy.needed, policy.exclude_requester,
                          agent.owner)
    return Policy(owner=agent.owner)


def backing_request(request: ApprovalRequest, locale: str) -> AskRequest:
    """The one single-select question every surface already knows how to show and answer."""
    return AskRequest.model_validate({"questions": [{
        "id": DECISION_ID, "header": tr(locale, HEADER), "question": request.action,
        "options": [{"label": label} for label in option_labels(locale)]}],
        "timeoutSeconds": request.timeout_seconds})


def requested_data(agent: AgentName, session: SessionKey, request: ApprovalRequest,
                   policy: Policy) -> dict[str, object]:
    return {"agent": agent, "session": session, "action": request.action, "tool": request.tool,
            "risk": request.risk, "arguments": request.arguments,
            "payloadHash": request.payload_hash, "policy": policy.to_json()}


class Approvals:
    """The approval side of the broker: requests, reads, waits, cancels and rules."""

    def __init__(self, store: Store, broker: Broker, people: People,
                 policies: Sequence[ApprovalPolicy]) -> None:
        self.store = store
        self.broker = broker
        self.people = people
        self.policies = list(policies)
        self.ballots = Ballots(store, people, self._edited)
        broker.outbound.shown_late = partial(shown_late, store, broker.outbound)

    async def request(self, agent_name: str, session: SessionKey, request: ApprovalRequest, *,
                      waiting: bool = True) -> ApprovalRecord:
        """Ask for approval: approved at once by a rule in force, else a backing question goes
        to the agent's surfaces. `PendingConflict`-style 409 when the session is busy."""
        agent = self.broker.agent(agent_name)
        if agent.role != "main":
            raise Forbidden(SUBAGENT)
        policy = policy_for(self.policies, agent, request)
        name = AgentName(agent.name)
        rule = await self._rule_for(name, request, policy)
        if rule is not None:
            return await self._by_rule(name, session, request, policy, rule)

        async def create(question: QuestionRecord, surfaces: list[SurfaceId],
                         timers: Sequence[TimerRecord]) -> None:
            approval = ApprovalRecord(question.id, name, session, request, request.payload_hash,
                                      policy, "pending", question.created_at, question.expires_at)
            await self.store.create_approval(
                question, surfaces, timers, approval,
                AuditDraft("requested", question.id, requested_data(name, session, request,
                                                                    policy), question.created_at))

        try:
            question = await self.broker.ask(agent.name, session,
                                             backing_request(request, agent.locale),
                                             waiting=waiting, approval=request, create=create)
        except Conflict as conflict:  # the same request again (a retry): the same approval
            same = await self._same(conflict, request)
            if same is None:
                raise
            return same
        log.info("approval_requested", approval_id=question.id, agent=agent.name,
                 tool=request.tool, risk=request.risk)
        self._unreachable(question.id, policy, [*agent.surfaces, *(
            s for tier in agent.escalation for s in tier.surfaces)])
        return ApprovalRecord(question.id, name, session, request, request.payload_hash, policy,
                              "pending", question.created_at, question.expires_at)

    def _unreachable(self, approval_id: QuestionId, policy: Policy, surfaces: Sequence[str],
                     ) -> None:
        """Warn when no listed approver has an id on any surface the approval goes to (an
        escalation tier may still reach one): it will wait for its timeout unless one does."""
        if policy.approvers and not any(self.people.reaches(a, s) for a in policy.approvers
                                        for s in surfaces):
            log.warning("approval_unreachable", approval_id=approval_id,
                        approvers=list(policy.approvers), surfaces=list(surfaces),
                        hint="give an approver an id on one of these surfaces in [[people]], "
                             "or add a surface they use to the agent")

    async def _same(self, conflict: Conflict, request: ApprovalRequest) -> ApprovalRecord | None:
        pending = conflict.extra.get("pendingId")
        approval = await self.store.get_approval(QuestionId(pending)) if pending else None
        if approval is not None and approval.pending and approval.request == request:
            log.info("approval_reattached", approval_id=approval.id)
            return approval
        return None

    async def _rule_for(self, agent: AgentName, request: ApprovalRequest, policy: Policy,
                        ) -> RuleRecord | None:
        """A rule in force for this call (agent, tool, arguments) that was made under the same
        policy: one made where a single answerer decides never stands in for a quorum. Without
        a tool, the action is what the rule allowed. A rule whose approval retention removed
        can show neither: the call is asked again."""
        for rule in await self.store.rules(agent, now_ms()):
            if (rule.tool != (request.tool or "") or rule.approval_id is None
                    or rule.payload_hash not in (None, request.payload_hash)):
                continue
            made = await self.store.get_approval(rule.approval_id)
            if (made is not None and made.policy == policy
                    and (request.tool or made.request.action == request.action)):
                return rule
        return None

    async def _by_rule(self, agent: AgentName, session: SessionKey, request: ApprovalRequest,
                       policy: Policy, rule: RuleRecord) -> ApprovalRecord:
        at = now_ms()
        result = ApprovalResult.approved(request.payload, False, "rule",
                                         [DecidedBy(surface=f"rule:{rule.id}", user=rule.created_by)])
        approval = ApprovalRecord(new_question_id(), agent, session, request, request.payload_hash,
                                  policy, "approved", at, at, result, at)
        await self.store.record_approval(approval, [
            AuditDraft("requested", approval.id, requested_data(agent, session, request, policy),
                       at),
            AuditDraft("decided", approval.id, {"agent": agent, "ruleId": rule.id,
                                                **result.to_json()}, at)])
        log.info("approval_by_rule", approval_id=approval.id, rule_id=rule.id, agent=agent)
        return approval

    # reads, waits, cancels ---------------------------------------------------------------

    async def get(self, approval_id: QuestionId) -> ApprovalRecord:
        """The approval as it stands (a backing question that ended unanswered settles it)."""
        approval = await self.store.get_approval(approval_id)
        if approval is None:
            raise NotFound(f"There is no approval {approval_id!r}.")
        if approval.pending:
            question = await self.store.get_question(approval_id)
            if question is not None and not question.pending:
                await self.settle(question)
                return await self.store.get_approval(approval_id) or approval
        return approval

    async def wait(self, approval_id: QuestionId, timeout: float | None) -> ApprovalRecord:
        """The approval once decided, or as it stands when `timeout` seconds pass."""
        approval = await self.get(approval_id)
        if approval.pending:
            await self.broker.wait(approval_id, timeout)
            approval = await self.get(approval_id)
        return approval

    async def cancel(self, approval_id: QuestionId) -> ApprovalRecord:
        """Cancel a pending approval; a decision that already won stays the decision."""
        approval = await self.get(approval_id)
        if approval.pending:
            await self.broker.cancel(approval_id)
        return await self.get(approval_id)

    async def settle(self, question: QuestionRecord) -> None:
        """The backing question ended without a decision (expired, cancelled, undelivered):
        write the approval's no_answer once, with its entry."""
        if question.approval is None or question.result is None:
            return
        if question.result.status != "no_answer":
            return
        reason = question.result.reason
        why: ApprovalNoAnswer = "cancelled"  # a skip cannot end an approval; never seen
        if reason in ("expired", "cancelled", "undelivered"):
            why = reason
        result = ApprovalResult.no_answer(why)
        at = question.resolved_at or now_ms()
        if await self.store.settle_approval(question.id, result, at, AuditDraft(
                "decided", question.id, {"agent": question.agent, **result.to_json()}, at)):
            log.info("approval_ended", approval_id=question.id, reason=why)

    def _edited(self, before: ApprovalRecord, vote: VoteRecord) -> None:
        """An edit that did not decide: every prompt shows the new arguments."""
        log.info("approval_edited", approval_id=before.id, voter=vote.voter,
                 payload_hash=vote.payload_hash)
        self.broker.emitter.emit("edited", before.id)
        self.broker.spawn(reshow(self.store, self.broker.outbound, self.broker.open, before,
                                 shown_name(vote)))

    def observed(self, event: str, question_id: QuestionId) -> None:
        """Emitter observer (any replica): an edit changed what the question's prompts show."""
        if event == "edited" and self.broker.open.known(question_id):
            self.broker.spawn(self._refresh(question_id))

    async def _refresh(self, question_id: QuestionId) -> None:
        record = await self.store.get_question(question_id)
        if record is not None and record.pending:
            self.broker.open.refresh(record)

    def ended(self, final: QuestionRecord) -> None:
        """A question ended in this process: an approval's backing question settles, from the
        record in hand (no question is read again to tell whether it backs an approval)."""
        if final.approval is not None:
            self.broker.spawn(self.settle(final))

    async def approver(self, question: QuestionRecord, surface: SurfaceId, user: UserRef) -> bool:
        """Whether the person is a listed approver of the approval behind `question`."""
        approval = await self.store.get_approval(question.id)
        return (approval is not None and bool(approval.policy.approvers)
                and self.ballots.may_vote(approval, surface, user, False))

    async def vote(self, question: QuestionRecord, ballot: Ballot) -> tuple[str, bool, bool]:
        """Check and count one person's decision: (what to tell them, counted, decided)."""
        return await self.ballots.cast(question, ballot,
                                       lambda commit: self.broker.conclude(question.id, commit))

    # rules -------------------------------------------------------------------------------

    async def rules(self, agent: AgentName | None) -> list[RuleRecord]:
        return await self.store.rules(agent, now_ms())

    async def revoke(self, rule_id: str, agent: AgentName | None, by: str) -> RuleRecord:
        """Revoke a rule (one of `agent`'s, unless None: any); NotFound if it is not theirs."""
        rule = await self.store.get_rule(rule_id)
        if rule is None or (agent is not None and rule.agent != agent):
            raise NotFound(f"There is no rule {rule_id!r} for this agent.")
        at = now_ms()
        await self.store.revoke_rule(rule_id, at, AuditDraft(
            "rule_revoked", rule.approval_id, {"agent": rule.agent, "ruleId": rule_id, "by": by},
            at))
        found = await self.store.get_rule(rule_id)
        assert found is not None
        return found

    async def revoke_in_force(self, rule_id: str, by: str) -> bool:
        """A surface's Revoke (the web UI lists every agent's rules): True when the rule was
        in force and now is not."""
        rule = await self.store.get_rule(rule_id)
        if rule is None or rule.revoked_at is not None or rule.expires_at <= now_ms():
            return False
        await self.revoke(rule_id, None, by)
        return True
