"""The read side: records, timelines and sessions as the HTTP API, the web UI and MCP show them
(camelCase, ISO 8601 UTC), and prompts as a surface shows them now. Nothing here writes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bridge.core.surfaces import Surfaces
from bridge.model.ids import AgentName, QuestionId, SessionKey, SurfaceId
from bridge.model.prompt import Prompt
from bridge.store.protocol import Store
from bridge.store.records import DeliveryRecord, QuestionRecord, iso


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


def kept(partial: dict[str, list[str]]) -> dict[str, list[str]]:
    """Stored partial answers that still hold something (a cleared selection is not an answer)."""
    return {k: v for k, v in partial.items() if v}


class Reads:
    """`Queries` for adapters, and the reads the HTTP API and MCP make; never `broker.store`."""

    def __init__(self, store: Store, surfaces: Surfaces, keep: str = "30d") -> None:
        self.store = store
        self.surfaces = surfaces
        self.keep = keep
        """How long an ended question is kept (`[store] keep`: `30d`, `12h`, … or `forever`)."""

    async def record(self, question_id: QuestionId) -> QuestionRecord | None:
        return await self.store.get_question(question_id)

    async def view_of(self, record: QuestionRecord) -> dict[str, Any]:
        return question_view(record, await self.store.deliveries(record.id))

    async def current_prompt(self, record: QuestionRecord, surface: SurfaceId | None) -> Prompt:
        """The prompt as it stands now on `surface` (every kept selection shown)."""
        partial = kept(await self.store.partial(record.id))
        return self.surfaces.prompt(record, surface, partial)

    async def prompt_for(self, question_id: QuestionId,
                         surface: SurfaceId | None = None) -> Prompt | None:
        record = await self.store.get_question(question_id)
        if record is None or not record.pending:
            return None
        return await self.current_prompt(record, surface)

    async def question_view(self, question_id: QuestionId) -> dict[str, Any] | None:
        record = await self.store.get_question(question_id)
        return None if record is None else await self.view_of(record)

    async def pending_views(self) -> list[dict[str, Any]]:
        records = sorted(await self.store.pending_questions(), key=lambda r: r.created_at)
        return await self._views(records)

    async def timeline_view(self, agent: AgentName, session: SessionKey,
                            limit: int = 100) -> list[dict[str, Any]]:
        return await self._views(await self.store.timeline(agent, session, limit))

    async def pending_of(self, agent: AgentName) -> list[QuestionRecord]:
        """One agent's pending questions (at most one per session, so never many)."""
        return [r for r in await self.store.pending_questions() if r.agent == agent]

    async def views(self, records: list[QuestionRecord]) -> list[dict[str, Any]]:
        return await self._views(records)

    async def _views(self, records: list[QuestionRecord]) -> list[dict[str, Any]]:
        return question_views(records, await self.store.deliveries_for([r.id for r in records]))

    async def session_views(self) -> list[dict[str, Any]]:
        out: list[tuple[int, dict[str, Any]]] = []
        for name in self.surfaces.agents:
            infos = await self.store.sessions(AgentName(name))
            out += [(i.last_at, {"agent": name, "session": i.session, "pending": i.pending,
                                 "lastAt": iso(i.last_at)}) for i in infos]
        return [view for _, view in sorted(out, key=lambda p: -p[0])]
