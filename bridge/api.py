"""The agents' HTTP API (`/v1`): ask, poll, cancel, timeline; bearer tokens; JSON errors."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from bridge.broker import Broker
from bridge.config import AgentConfig
from bridge.contract import AskRequest, InvalidRequest, Problem, parse_ask_request
from bridge.errors import NotFound, Unauthorized
from bridge.security import bearer, match_token
from bridge.store.records import QuestionRecord, iso
from bridge.types import QuestionId
from bridge.views import question_view, question_views

SESSION_PATTERN = re.compile(r"^[A-Za-z0-9._:@-]{1,128}$")


def error_body(code: str, msg: str, loc: str = "body") -> dict[str, Any]:
    return {"error": code, "details": [{"loc": loc, "msg": msg}]}


def invalid(problems: list[Problem]) -> JSONResponse:
    return JSONResponse(
        {"error": "invalid_request", "details": [p.model_dump() for p in problems]},
        status_code=422,
    )


class Auth:
    """Resolves `Authorization: Bearer …` to an agent, in constant time over all tokens."""

    def __init__(self, broker: Broker, tokens: dict[str, str]) -> None:
        self.broker = broker
        self.tokens = tokens

    def agent(self, request: Request) -> AgentConfig:
        name = match_token(bearer(request.headers.get("authorization")), self.tokens.items())
        if name is None:
            raise Unauthorized(
                "Send the agent's token as `Authorization: Bearer <token>`; this one is missing "
                "or not known."
            )
        return self.broker.agent(name)


async def read_json(request: Request) -> Any:
    body = await request.body()
    try:
        return json.loads(body or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise InvalidRequest([Problem(loc="body", msg="The body is not valid JSON.")]) from None


async def read_ask(request: Request) -> AskRequest:
    return parse_ask_request(await read_json(request))


async def wait_disconnect(request: Request) -> None:
    """Return once the client has gone away."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


def check_session(session: str) -> None:
    if not SESSION_PATTERN.fullmatch(session):
        raise InvalidRequest([Problem(
            loc="session",
            msg="Use a session key of 1-128 letters, digits or . _ : @ - characters.",
        )])


def restarting(record: QuestionRecord) -> JSONResponse:
    """A graceful stop leaves the question pending; tell the agent how to pick up its result."""
    body = error_body("restarting", "askbridge is restarting; the question stays pending. Poll "
                      f"GET /v1/questions/{record.id}/result?wait=60 until it answers.", "server")
    body["id"] = record.id
    return JSONResponse(body, status_code=503, headers={"Retry-After": "1"})


def result_json(record: QuestionRecord) -> dict[str, Any]:
    if record.result is None:
        return {"status": "pending"}
    return record.result.to_json()


_ASK_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AskRequest"}}},
    }
}


def build_router(broker: Broker, auth: Auth) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["agents"])

    async def own(request: Request, question_id: str) -> QuestionRecord:
        agent = auth.agent(request)
        record = await broker.store.get_question(QuestionId(question_id))
        if record is None or record.agent != agent.name:
            raise NotFound(f"There is no question {question_id!r} for this agent.")
        return record

    @router.post("/sessions/{session}/ask", openapi_extra=_ASK_BODY,
                 summary="Ask and block until the person answers or the question ends")
    async def ask(request: Request, session: str) -> JSONResponse:
        agent = auth.agent(request)
        check_session(session)
        ask_request = await read_ask(request)
        record = await broker.ask(agent.name, session, ask_request)
        gone = asyncio.create_task(wait_disconnect(request))
        done = asyncio.create_task(broker.wait(record.id, None))
        drain = asyncio.create_task(broker.draining.wait())
        try:
            await asyncio.wait({gone, done, drain}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (gone, drain):
                task.cancel()
            if not done.done():
                done.cancel()
                if not broker.draining.is_set():  # the agent went away: cancel
                    await broker.cancel(record.id)
        if not done.done():
            return restarting(record)
        return JSONResponse(result_json(done.result()))  # terminal: broker.wait read it

    @router.post("/sessions/{session}/questions", status_code=202, openapi_extra=_ASK_BODY,
                 summary="Ask without blocking; poll the result")
    async def create(request: Request, session: str) -> JSONResponse:
        agent = auth.agent(request)
        check_session(session)
        record = await broker.ask(agent.name, session, await read_ask(request))
        return JSONResponse({"id": record.id, "status": record.status,
                             "expiresAt": iso(record.expires_at)}, status_code=202)

    @router.get("/questions/{question_id}", summary="The whole question record")
    async def get(request: Request, question_id: str) -> JSONResponse:
        record = await own(request, question_id)
        return JSONResponse(question_view(record, await broker.store.deliveries(record.id)))

    @router.get("/questions/{question_id}/result", summary="Long-poll for the result")
    async def result(request: Request, question_id: str, wait: float = 0) -> JSONResponse:
        record = await own(request, question_id)
        if record.pending and wait > 0:
            record = await broker.wait(record.id, min(wait, 3600.0))
        if record.pending:
            return JSONResponse({"status": "pending"}, status_code=202)
        return JSONResponse(result_json(record))

    @router.post("/questions/{question_id}/cancel", summary="Cancel; an answer that won stays")
    async def cancel(request: Request, question_id: str) -> JSONResponse:
        record = await own(request, question_id)
        return JSONResponse(result_json(await broker.cancel(record.id)))

    @router.get("/sessions/{session}/timeline", summary="Every question of a session, newest first")
    async def timeline(request: Request, session: str, limit: int = 100) -> JSONResponse:
        agent = auth.agent(request)
        records = await broker.store.timeline(agent.name, session, max(1, min(limit, 1000)))  # type: ignore[arg-type]
        items = question_views(records, await broker.store.deliveries_for([r.id for r in records]))
        return JSONResponse({"session": session, "questions": items})

    @router.get("/me", summary="Which agent this token belongs to")
    async def me(request: Request) -> JSONResponse:
        agent = auth.agent(request)
        return JSONResponse({"agent": agent.name, "role": agent.role, "surfaces": agent.surfaces})

    return router

