"""`GET /v1/questions`: the calling agent's own pending questions, newest first, page by page."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse

from bridge.core.reads import Reads
from bridge.http.api import Auth, Routes
from bridge.http.openapi import responses
from bridge.model.ids import AgentName
from bridge.model.validation import InvalidRequest, Problem
from bridge.store.records import QuestionRecord

PAGE_MAX = 1000


def _cursor(record: QuestionRecord) -> str:
    return f"{record.created_at}-{record.id}"


def _after(cursor: str) -> tuple[int, str]:
    """The position a cursor names: the (created, id) of the last question of the page before."""
    created, _, qid = cursor.partition("-")
    if not created.isdigit() or not qid:
        raise InvalidRequest([Problem(loc="query.cursor", msg="Pass `cursor` exactly as the "
                                      "last page's `nextCursor` gave it, or leave it out.")])
    return int(created), qid


def add_listing(routes: Routes, reads: Reads, auth: Auth) -> None:
    @routes.add("GET", "/questions", operation_id="list_questions",
                summary="This agent's pending questions, newest first",
                responses=responses({200: ("QuestionList", "Newest first, one page")},
                                    (401, 422)))
    async def questions(request: Request, status: str = "pending", limit: int = 50,
                        cursor: str = "") -> JSONResponse:
        agent = auth.agent(request)
        if status != "pending":
            raise InvalidRequest([Problem(loc="query.status", msg=(
                "Only status=pending is listed here; every question of a session, ended ones "
                "too, is at GET /v1/sessions/{session}/timeline."))])
        records = sorted(await reads.pending_of(AgentName(agent.name)),
                         key=lambda r: (r.created_at, r.id), reverse=True)
        if cursor:
            position = _after(cursor)
            records = [r for r in records if (r.created_at, r.id) < position]
        size = max(1, min(limit, PAGE_MAX))
        page = records[:size]
        more = len(records) > size
        return JSONResponse({"questions": await reads.views(page),
                             "nextCursor": _cursor(page[-1]) if more else None})
