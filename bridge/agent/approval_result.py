"""PROVISIONAL until the approvals core lands: the approval result as the HTTP API returns it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", alias_generator=to_camel,
                              populate_by_name=True)


class Decider(_Frozen):
    surface: str
    user: str


class ApprovalResult(_Frozen):
    status: Literal["approved", "rejected", "no_answer"]
    arguments: dict[str, Any] | None = None
    edited: bool | None = None
    scope: Literal["once", "rule"] | None = None
    decided_by: list[Decider] | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)
