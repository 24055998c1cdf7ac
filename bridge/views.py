"""Records as the HTTP API, the web UI and MCP show them (camelCase, ISO 8601 UTC)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bridge.store.records import DeliveryRecord, QuestionRecord, iso
from bridge.types import QuestionId


def delivery_view(d: DeliveryRecord) -> dict[str, Any]:
    return {
        "surface": d.surface,
        "state": d.state,
        "messageRef": d.message_ref,
        "error": d.error,
        "finalized": d.finalized,
        "tier": d.tier,
        "deliveredAt": iso(d.delivered_at),
        "reminders": d.reminders,
    }


def question_view(record: QuestionRecord, deliveries: list[DeliveryRecord]) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": record.id,
        "agent": record.agent,
        "session": record.session,
        "status": record.status,
        "request": record.request.model_dump(mode="json", by_alias=True, exclude_none=True),
        "surfaces": [d.surface for d in deliveries],
        "deliveries": [delivery_view(d) for d in deliveries],
        "createdAt": iso(record.created_at),
        "expiresAt": iso(record.expires_at),
        "resolvedAt": iso(record.resolved_at),
        "summary": record.summary,
        "answeredBy": (
            {"surface": record.answered_by.surface, "user": record.answered_by.user}
            if record.answered_by
            else None
        ),
    }
    if record.reason:
        view["reason"] = record.reason
    view["result"] = record.result.to_json() if record.result else None
    return view


def question_views(
    records: Sequence[QuestionRecord], deliveries: Mapping[QuestionId, list[DeliveryRecord]]
) -> list[dict[str, Any]]:
    """Many records, with deliveries read once for all of them (`Store.deliveries_for`)."""
    return [question_view(r, deliveries.get(r.id, [])) for r in records]
