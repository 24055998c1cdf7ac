"""Pending questions as this process asked them: a hint that spares taps and replies two reads."""

from __future__ import annotations

import asyncio

from bridge.model.ids import QuestionId, SurfaceId
from bridge.store.protocol import Store
from bridge.store.records import QuestionRecord


class OpenQuestions:
    """Only ever a hint: every resolution is still a compare-and-set in the store, and a
    question asked by another replica is read from the store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._open: dict[QuestionId, tuple[QuestionRecord, frozenset[SurfaceId]]] = {}
        self._locks: dict[QuestionId, asyncio.Lock] = {}

    def remember(self, record: QuestionRecord, surfaces: list[SurfaceId]) -> None:
        self._open[record.id] = (record, frozenset(surfaces))

    def refresh(self, record: QuestionRecord) -> None:
        """The question changed in the store (an approval's edit): keep the new record."""
        cached = self._open.get(record.id)
        if cached is not None:
            self._open[record.id] = (record, cached[1])

    def forget(self, question_id: QuestionId) -> None:
        self._open.pop(question_id, None)
        self._locks.pop(question_id, None)

    def lock(self, question_id: QuestionId) -> asyncio.Lock:
        """Held while the question's partial answers are read and written (taps, replies)."""
        return self._locks.setdefault(question_id, asyncio.Lock())

    def known(self, question_id: QuestionId) -> bool:
        """Asked here and not ended here (with replicas only the store knows)."""
        return question_id in self._open

    async def get(self, question_id: QuestionId) -> QuestionRecord | None:
        """The question if it is (as far as this process knows) still pending, else None."""
        cached = self._open.get(question_id)
        if cached is not None:
            return cached[0]
        record = await self.store.get_question(question_id)  # asked by another replica
        return record if record is not None and record.pending else None

    async def current(self, record: QuestionRecord) -> QuestionRecord:
        """The record as it is now: an approval's is read again (an edit may have changed its
        arguments, on any replica, while its prompt waited for the platform); a question's
        never changes."""
        if record.approval is None:
            return record
        return await self.store.get_question(record.id) or record

    async def sent_to(self, question_id: QuestionId, surface: SurfaceId) -> bool:
        """Whether `surface` is one of the question's surfaces (the only ones that may answer)."""
        cached = self._open.get(question_id)
        if cached is not None and surface in cached[1]:
            return True  # not in the cache: maybe an escalation tier another replica sent
        return any(d.surface == surface for d in await self.store.deliveries(question_id))

    def add_surfaces(self, question_id: QuestionId, surfaces: list[SurfaceId]) -> None:
        """An escalation tier added surfaces: they may answer from now on."""
        cached = self._open.get(question_id)
        if cached is not None and surfaces:
            self._open[question_id] = (cached[0], cached[1] | frozenset(surfaces))
