"""Who hears of a question's changes: observers (every change, any replica) and listeners (this
process's own changes only), told by event name and question id."""

from __future__ import annotations

from collections.abc import Callable

import structlog

from bridge.model.ids import QuestionId

log = structlog.get_logger("askbridge.broker")

Emit = Callable[[str, QuestionId], None]
"""Tells of a change made here: `created`, `delivery`, `reminded`, `escalated`, `resolved`."""


class Emitter:
    """Fans a change out to everyone who listens; one that fails is logged, never the caller's
    problem."""

    def __init__(self) -> None:
        self.observers: list[Callable[[str, QuestionId], None]] = []
        """Told of every change, local or by another replica (adapters that show live state)."""
        self.listeners: list[Callable[[str, QuestionId], None]] = []
        """Told only of changes made by this process (event hooks: once each across replicas)."""

    def emit(self, event: str, question_id: QuestionId, local: bool = True) -> None:
        for hear in list(self.observers) + (list(self.listeners) if local else []):
            try:
                hear(event, question_id)
            except Exception:
                log.exception("observer_failed", event_name=event, question_id=question_id)
