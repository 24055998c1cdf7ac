"""Stored rows read back into records (the column lists the reads select, in order)."""

from __future__ import annotations

from functools import lru_cache

from bridge.model.approval import ApprovalRequest
from bridge.model.contract import AskRequest, AskResult
from bridge.model.ids import AgentName, MessageRef, QuestionId, SessionKey, SurfaceId, UserRef
from bridge.store.records import AnsweredBy, DeliveryRecord, QuestionRecord
from bridge.store.writes import QUESTION_COLUMNS, Row

Q_COLUMNS = ", ".join(f"q.{c.strip()}" for c in QUESTION_COLUMNS.split(","))
DELIVERY_COLUMNS = (
    "question_id, surface, state, message_ref, error, finalized, tier, delivered_at, reminders")
D_COLUMNS = ", ".join(f"d.{c.strip()}" for c in DELIVERY_COLUMNS.split(","))


@lru_cache(maxsize=1024)
def parse_request(text: str) -> AskRequest:
    """Stored requests are parsed again on every read; they never change, and the model is
    frozen, so one parse per distinct text is enough (restart and hot reads alike)."""
    return AskRequest.model_validate_json(text)


@lru_cache(maxsize=256)
def parse_approval(text: str) -> ApprovalRequest:
    """An approval's request as stored (valid when stored: read without checking again)."""
    return ApprovalRequest.model_validate_json(text, by_alias=True, by_name=False)


def row_to_question(row: Row) -> QuestionRecord:
    (qid, agent, session, request, status, reason, result, a_surface, a_user, summary,
     created_at, expires_at, resolved_at, approval) = tuple(row)
    return QuestionRecord(
        id=QuestionId(qid),
        agent=AgentName(agent),
        session=SessionKey(session),
        request=parse_request(request),
        status=status,
        reason=reason,
        result=AskResult.model_validate_json(result) if result else None,
        answered_by=AnsweredBy(SurfaceId(a_surface), UserRef(a_user)) if a_surface else None,
        summary=summary,
        created_at=int(created_at),
        expires_at=int(expires_at),
        resolved_at=int(resolved_at) if resolved_at is not None else None,
        approval=parse_approval(approval) if approval else None,
    )


def row_to_delivery(row: Row) -> DeliveryRecord:
    qid, surface, state, ref, error, finalized, tier, delivered_at, reminders = tuple(row)
    return DeliveryRecord(
        question_id=QuestionId(qid),
        surface=SurfaceId(surface),
        state=state,
        message_ref=MessageRef(ref) if ref is not None else None,
        error=error,
        finalized=bool(finalized),
        tier=int(tier),
        delivered_at=int(delivered_at) if delivered_at is not None else None,
        reminders=int(reminders),
    )
