"""`Queries` as adapters get it: the question reads, and approvals and their rules beside them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bridge.core.approval_reads import approval_view_of, approval_views, rule_view
from bridge.core.card_links import CardLinks
from bridge.core.reads import Reads
from bridge.model.ids import QuestionId, SurfaceId, UserRef
from bridge.store.records import now_ms


class AdapterReads(Reads):
    """What the web card and its rules list read (an approval rides on a backing question, so
    every other read is the question's), and the signed answer-page links adapters send."""

    links: CardLinks | None = None

    async def card_link(self, question_id: QuestionId, surface: SurfaceId,
                        user: UserRef) -> str | None:
        if self.links is None:
            return None
        return await self.links.url(question_id, surface, user)

    async def approval_view(self, approval_id: QuestionId) -> dict[str, Any] | None:
        approval = await self.store.get_approval(approval_id)
        if approval is None:
            return None
        return await approval_view_of(self.store, approval,
                                      await self.store.get_question(approval_id))

    async def approval_views(self, ids: Sequence[QuestionId]) -> dict[QuestionId, dict[str, Any]]:
        found = await self.store.approvals_for(ids)
        approvals = [found[i] for i in ids if i in found]
        views = await approval_views(self.store, approvals)
        return {a.id: view for a, view in zip(approvals, views, strict=True)}

    async def rules_view(self) -> list[dict[str, Any]]:
        return [rule_view(r) for r in await self.store.rules(None, now_ms())]
