"""What the store keeps of approvals: the approval, its votes, rules, and audit entries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from bridge.model.approval import ApprovalRequest, ApprovalResult, ApprovalStatus
from bridge.model.canonical import canonical, sha256_hex
from bridge.model.ids import AgentName, QuestionId, SessionKey, SurfaceId, UserRef
from bridge.store.records import Resolution

GENESIS = "0" * 64
"""The `prev` of the first audit entry ever written."""
AuditKind = Literal["requested", "voted", "edited", "decided", "rule_created", "rule_revoked"]
VoteDecision = Literal["approve", "reject"]


@dataclass(frozen=True, slots=True)
class Policy:
    """The `[[approvals]]` policy an approval was asked under, kept with it (a config change
    never moves a pending approval's goalposts). No approvers: any answerer may decide."""

    approvers: tuple[str, ...] = ()
    needed: int = 1
    exclude_requester: bool = False
    owner: str | None = None
    """The requesting agent's `owner` person (four eyes)."""

    def to_json(self) -> dict[str, Any]:
        return {"approvers": list(self.approvers), "needed": self.needed,
                "excludeRequester": self.exclude_requester, "owner": self.owner}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Policy:
        return cls(tuple(data["approvers"]), int(data["needed"]), bool(data["excludeRequester"]),
                   data.get("owner"))


@dataclass(frozen=True, slots=True)
class ApprovalRecord:
    id: QuestionId
    agent: AgentName
    session: SessionKey
    request: ApprovalRequest
    payload_hash: str
    policy: Policy
    status: ApprovalStatus
    created_at: int
    expires_at: int
    result: ApprovalResult | None = None
    decided_at: int | None = None
    arguments: dict[str, Any] | None = None
    """The arguments an edit proposed (`payload_hash` is theirs); None: as asked."""

    @property
    def pending(self) -> bool:
        return self.status == "pending"

    @property
    def current(self) -> dict[str, Any]:
        """The arguments waiting for approval now: the last edit's, else the request's."""
        return dict(self.arguments) if self.arguments is not None else self.request.payload


@dataclass(frozen=True, slots=True)
class VoteRecord:
    """One person's decision on one approval; `payload_hash` is what they were shown."""

    approval_id: QuestionId
    voter: str
    """The person (`ana`), or the platform user no `[[people]]` entry names (`telegram/7`)."""
    surface: SurfaceId
    user: UserRef
    decision: VoteDecision
    payload_hash: str
    at: int
    reason: str | None = None
    arguments: dict[str, Any] | None = None
    """The person's edit, when they changed the arguments."""
    rule: Literal["arguments", "any"] | None = None
    """An approval that also allows the same (`arguments`) or any call for an hour."""
    base_hash: str = ""
    """Not stored: the payload the voter saw, when an edit made `payload_hash` another; the
    store refuses the vote as `stale` unless it is still the approval's."""


@dataclass(frozen=True, slots=True)
class RuleRecord:
    id: str
    agent: AgentName
    tool: str
    """The tool name, `` for approvals without one."""
    payload_hash: str | None
    """None: any arguments."""
    created_at: int
    expires_at: int
    created_by: str
    approval_id: QuestionId | None = None
    revoked_at: int | None = None


@dataclass(frozen=True, slots=True)
class AuditDraft:
    """An entry to append: the store gives it its `seq`, `prev` and `hash`."""

    kind: AuditKind
    approval_id: QuestionId | None
    data: dict[str, Any]
    at: int


@dataclass(frozen=True, slots=True)
class AuditEntry:
    seq: int
    at: int
    kind: AuditKind
    approval_id: QuestionId | None
    data: dict[str, Any]
    prev: str
    hash: str

    def expected_hash(self) -> str:
        return entry_hash(self.seq, self.at, self.kind, self.approval_id, self.data, self.prev)

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "at": self.at, "kind": self.kind, "approvalId": self.approval_id,
                "data": self.data, "prev": self.prev, "hash": self.hash}


def entry_hash(seq: int, at: int, kind: str, approval_id: str | None, data: dict[str, Any],
               prev: str) -> str:
    """SHA-256 over the canonical (RFC 8785) entry, its `prev` included."""
    return sha256_hex(canonical({"seq": seq, "at": at, "kind": kind, "approvalId": approval_id,
                                 "data": data, "prev": prev}))


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a vote decided: the approval's result, and the rule an "Allow for 1 h" records."""

    result: ApprovalResult
    resolution: Resolution | None = None
    """How the backing question ends with it (its status line and timeline summary)."""
    rule: RuleRecord | None = None
    audits: list[AuditDraft] = field(default_factory=list)
    """`decided`, and `rule_created` with a rule."""


VoteOutcome = Literal["counted", "edited", "decided", "already", "stale", "ended", "lost"]
"""`counted`: recorded, not decided yet; `edited`: an edit recorded, not decided yet (the
prompts must show its arguments); `decided`: this vote decided it; `already`: this person had
voted on these arguments; `stale`: the vote was for arguments an edit has since replaced;
`ended`: the approval was no longer pending; `lost`: its backing question ended (expired,
cancelled) in the same moment."""
