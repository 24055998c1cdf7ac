"""One person's decision on an approval, checked before it counts: the payload it was shown,
who they are, four eyes, a reason for a rejection, an edit the schema allows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import structlog

from bridge.core.quorum import decide
from bridge.model.approval import arguments_problems
from bridge.model.canonical import canonical, payload_hash
from bridge.model.ids import SurfaceId, UserRef
from bridge.runtime.people import People
from bridge.store.approval_records import ApprovalRecord, AuditDraft, VoteOutcome, VoteRecord
from bridge.store.protocol import Store
from bridge.store.records import QuestionRecord, Resolution, now_ms
from bridge.text.approval_text import recorded_text
from bridge.text.i18n import N_, tr

log = structlog.get_logger("askbridge.approvals")

STALE = N_("This decision is for other arguments than the ones waiting for approval (what you "
           "saw is out of date); decide on the approval as it is shown now.")
EDITED = N_("The arguments of this request were changed by an edit since you saw them; decide "
            "on the new arguments as they are shown now.")
EDIT_RECORDED = N_("Your edit is recorded as your approval of the new arguments; every approver "
                   "is shown them.")
NOT_APPROVER = N_("Sorry, you are not one of the approvers of this request.")
FOUR_EYES = N_("This request was made on your behalf, so someone else must approve it.")
ALREADY = N_("Your decision on this approval was already recorded.")
ENDED = N_("This approval has already been decided.")
NEED_REASON = N_('Say why: reply "reject <reason>".')
NO_EDIT = N_("The arguments of this request may not be edited; approve or reject them as they are.")
APPROVED = N_("Approved.")
REJECTED = N_("Rejected.")
ALLOWED = N_("Approved; the same call is allowed for 1 hour.")
Conclude = Callable[[Callable[[QuestionRecord], Awaitable[Resolution | None]]], Awaitable[bool]]
"""The broker's end of a question through a commit of the caller's (`Broker.conclude`)."""


@dataclass(frozen=True, slots=True)
class Ballot:
    """A decision as a surface handed it in."""

    surface: SurfaceId
    user: UserRef
    choice: Literal["approve", "reject", "allow"]
    authorized: bool
    locale: str
    reason: str = ""
    arguments: dict[str, Any] | None = None
    shown_hash: str | None = None
    any_arguments: bool = False


class Ballots:
    """Checks a ballot against the approval's policy, then has the store count it."""

    def __init__(self, store: Store, people: People,
                 on_edit: Callable[[ApprovalRecord, VoteRecord], None] | None = None) -> None:
        self.store = store
        self.people = people
        self.on_edit = on_edit
        """Told of an edit that did not decide: its prompts must show the new arguments."""

    def may_vote(self, approval: ApprovalRecord | None, surface: SurfaceId, user: UserRef,
                 authorized: bool) -> bool:
        """A listed approver may vote from any surface the approval went to; without a list,
        any answerer of the surface."""
        if approval is None or not approval.policy.approvers:
            return authorized
        return self.people.person(surface, user) in approval.policy.approvers

    def refusal(self, approval: ApprovalRecord, ballot: Ballot) -> str | None:
        """Why the ballot may not count (a sentence in the person's language), or None."""
        loc = ballot.locale
        if not self.may_vote(approval, ballot.surface, ballot.user, ballot.authorized):
            if approval.policy.approvers:
                return tr(loc, NOT_APPROVER)
            return tr(loc, "Sorry, only the person this question is for can answer it.")
        shown = (ballot.shown_hash or "").lower()
        if shown and (len(shown) < 6 or not approval.payload_hash.startswith(shown)):
            if approval.arguments is not None:
                return tr(loc, EDITED)
            return tr(loc, STALE)
        person = self.people.person(ballot.surface, ballot.user)
        if (approval.policy.exclude_requester and ballot.choice != "reject"
                and person is not None and person == approval.policy.owner):
            return tr(loc, FOUR_EYES)
        if ballot.choice == "reject" and not ballot.reason.strip():
            return tr(loc, NEED_REASON)
        if ballot.arguments is not None and ballot.choice != "reject":
            if not approval.request.editable:
                return tr(loc, NO_EDIT)
            problems = arguments_problems(ballot.arguments, approval.request.arguments_schema)
            if problems:
                return problems[0].msg
        return None

    def _vote(self, approval: ApprovalRecord, ballot: Ballot) -> VoteRecord:
        edited = ballot.arguments if ballot.choice != "reject" else None
        if edited is not None and canonical(edited) == canonical(approval.current):
            edited = None
        rule: Literal["arguments", "any"] | None = None
        if ballot.choice == "allow":
            rule = "any" if ballot.any_arguments else "arguments"
        return VoteRecord(approval.id, self.people.voter(ballot.surface, ballot.user),
                          ballot.surface, ballot.user,
                          "reject" if ballot.choice == "reject" else "approve",
                          approval.payload_hash if edited is None else payload_hash(edited),
                          now_ms(), ballot.reason.strip() if ballot.choice == "reject" else None,
                          edited, rule, approval.payload_hash)

    async def cast(self, question: QuestionRecord, ballot: Ballot,
                   conclude: Conclude) -> tuple[str, bool, bool]:
        """(what to tell the person, whether it counted, whether it decided the approval)."""
        approval = await self.store.get_approval(question.id)
        if approval is None or not approval.pending:
            return tr(ballot.locale, ENDED), False, False
        refused = self.refusal(approval, ballot)
        if refused is not None:
            log.info("vote_refused", approval_id=approval.id, surface=ballot.surface)
            return refused, False, False
        vote = self._vote(approval, ballot)
        outcome: list[VoteOutcome] = []
        ruled: list[bool] = []

        async def commit(_: QuestionRecord) -> Resolution | None:
            found, verdict = await self.store.cast_vote(vote, _voted(approval, vote), decide)
            outcome.append(found)
            ruled.append(verdict is not None and verdict.rule is not None)
            return verdict.resolution if verdict is not None else None

        decided = await conclude(commit)
        found = outcome[0] if outcome else "ended"
        log.info("vote_cast", approval_id=approval.id, surface=ballot.surface, outcome=found)
        if found == "edited" and self.on_edit is not None:
            self.on_edit(approval, vote)
        return (await self._told(approval, ballot, found, decided, any(ruled)),
                found in ("counted", "edited", "decided"), decided)

    async def _told(self, approval: ApprovalRecord, ballot: Ballot, found: VoteOutcome,
                    decided: bool, ruled: bool = False) -> str:
        loc = ballot.locale
        if found == "already":
            return tr(loc, ALREADY)
        if found == "stale":
            return tr(loc, EDITED)
        if found == "edited":
            return tr(loc, EDIT_RECORDED)
        if found in ("ended", "lost") or (found == "decided" and not decided):
            return tr(loc, ENDED)
        if found == "decided":
            if ballot.choice == "reject":
                return tr(loc, REJECTED)
            if ballot.choice == "allow" and ruled:
                return tr(loc, ALLOWED)
            return tr(loc, APPROVED)
        now = await self.store.get_approval(approval.id) or approval
        have = sum(v.decision == "approve" and v.payload_hash == now.payload_hash
                   for v in await self.store.votes(approval.id))
        return recorded_text(have, approval.policy.needed, loc)


def _voted(approval: ApprovalRecord, vote: VoteRecord) -> AuditDraft:
    return AuditDraft("voted", approval.id, {
        "agent": approval.agent, "voter": vote.voter, "surface": vote.surface, "user": vote.user,
        "decision": vote.decision, "reason": vote.reason, "payloadHash": vote.payload_hash,
        "edited": vote.arguments is not None, "arguments": vote.arguments, "rule": vote.rule},
        vote.at)
