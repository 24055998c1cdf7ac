"""The agents' HTTP API (`/v1`): ask, poll, cancel, timeline; bearer tokens; JSON errors."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, get_type_hints

import structlog
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bridge.core.blocking_ask import ask_and_wait, ask_or_attach
from bridge.core.broker import Broker
from bridge.core.reads import Reads
from bridge.http.bodies import read_json
from bridge.http.openapi import ERROR_TEXT, responses
from bridge.model.contract import AskRequest
from bridge.model.errors import NOT_AUTHORIZED, NotFound, Unauthorized, error_body
from bridge.model.ids import AgentName, QuestionId
from bridge.model.validation import (
    InvalidRequest,
    Problem,
    parse_ask_request,
    session_key,
    warnings_for,
)
from bridge.runtime.config import AgentConfig
from bridge.runtime.security import bearer, match_token
from bridge.store.records import QuestionRecord, iso

log = structlog.get_logger("askbridge.api")


class Auth:
    """Resolves `Authorization: Bearer …` to an agent, in constant time over all tokens."""

    def __init__(self, broker: Broker, tokens: dict[str, str]) -> None:
        self.broker = broker
        self.tokens = tokens

    def agent(self, request: Request) -> AgentConfig:
        name = match_token(bearer(request.headers.get("authorization")), self.tokens.items())
        if name is None:
            raise Unauthorized(NOT_AUTHORIZED)
        return self.broker.agent(name)


async def read_ask(request: Request) -> AskRequest:
    return parse_ask_request(await read_json(request), text_checked=True)


async def wait_disconnect(request: Request) -> None:
    """Return once the client has gone away."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


def restarting(record: QuestionRecord) -> JSONResponse:
    """A graceful stop leaves the question pending; tell the agent how to pick up its result."""
    body = error_body("restarting", [{"loc": "server", "msg": "askbridge is restarting; the "
                                      "question stays pending. Poll GET /v1/questions/"
                                      f"{record.id}/result?wait=60 until it answers."}])
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


Endpoint = Callable[..., Coroutine[Any, Any, Response]]


@dataclass
class Routes:
    """HTTP routes declared once. They are served as plain Starlette routes: FastAPI's
    per-request work (dependency solving, its route wrapper and middleware) cost 0.15 ms of CPU
    per request warm and about 0.4 ms on the ask path's latency, and importing it 5 MB in the
    server. The same declarations become FastAPI routes only when the OpenAPI document is
    generated."""

    prefix: str
    tags: list[str]
    served: list[Route] = field(default_factory=list)
    declared: list[tuple[str, str, Endpoint, dict[str, Any]]] = field(default_factory=list)

    def add(self, method: str, path: str, **docs: Any) -> Callable[[Endpoint], Endpoint]:
        def register(endpoint: Endpoint) -> Endpoint:
            self.declared.append((method, path, endpoint, docs))
            self.served.append(Route(self.prefix + path, direct(endpoint), methods=[method]))
            return endpoint
        return register

    def documented(self) -> list[BaseRoute]:
        """The declarations as FastAPI routes, for `get_openapi` (never served)."""
        from fastapi import APIRouter

        router = APIRouter(prefix=self.prefix, tags=list(self.tags))
        for method, path, endpoint, docs in self.declared:
            router.add_api_route(path, endpoint, methods=[method], **docs)
        return list(router.routes)


def direct(endpoint: Endpoint) -> Callable[[Request], Coroutine[Any, Any, Response]]:
    """`endpoint(request, **params)` as a Starlette endpoint: path parameters as given, the
    others from the query string, converted to their annotated type (a 422 when they are not)."""
    hints = get_type_hints(endpoint)
    params = list(inspect.signature(endpoint).parameters.values())[1:]

    async def serve(request: Request) -> Response:
        given = request.path_params
        return await endpoint(request, **{
            p.name: given[p.name] if p.name in given else query(request, p.name, hints[p.name],
                                                               p.default)
            for p in params})
    return serve


BIGINT = 2**63
"""A whole number in a query is a 64-bit one: SQLite and PostgreSQL refuse a bigger one (a 500)."""


def query(request: Request, name: str, kind: type[Any], default: Any) -> Any:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if kind is bool:
        if raw.lower() in ("true", "false"):
            return raw.lower() == "true"
        raise InvalidRequest([Problem(loc=f"query.{name}",
                                      msg=f"Give `{name}` as true or false.")])
    try:
        value = kind(raw)
        if kind is int and not -BIGINT <= value < BIGINT:  # what a store's INTEGER holds
            raise ValueError(raw)
        return value
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise InvalidRequest([Problem(loc=f"query.{name}",
                                      msg=f"Give `{name}` as {what}, for example {default}.")]
                             ) from None


async def owned(reads: Reads, agent: AgentConfig, question_id: str) -> QuestionRecord:
    """The agent's own question `question_id`; another agent's is the 404 an unknown one is."""
    record = await reads.record(QuestionId(question_id))
    if record is None or record.agent != agent.name:
        raise NotFound(f"There is no question {question_id!r} for this agent.")
    return record


def build_routes(broker: Broker, reads: Reads, auth: Auth) -> Routes:
    routes = Routes("/v1", ["agents"])

    async def own(request: Request, question_id: str) -> QuestionRecord:
        return await owned(reads, auth.agent(request), question_id)

    @routes.add("POST", "/sessions/{session}/ask", operation_id="ask", openapi_extra=_ASK_BODY,
                responses=responses({200: ("AskResult", "The question ended"),
                                     503: ("Restarting", ERROR_TEXT[503])},
                                    (401, 403, 409, 413, 415, 422)),
                summary="Ask and block until the person answers or the question ends")
    async def ask(request: Request, session: str) -> JSONResponse:
        agent = auth.agent(request)
        key = session_key(session)
        outcome, final = await ask_and_wait(broker, agent.name, key, await read_ask(request),
                                            lambda: wait_disconnect(request))
        if outcome == "restarting":
            return restarting(final)
        return JSONResponse(result_json(final))

    @routes.add("POST", "/sessions/{session}/questions", operation_id="create_question",
                status_code=202, openapi_extra=_ASK_BODY,
                responses=responses({202: ("Created", "Asked; poll the result")},
                                    (401, 403, 409, 413, 415, 422)),
                summary="Ask without blocking; poll the result")
    async def create(request: Request, session: str, attach: bool = False) -> JSONResponse:
        """With `attach=true`, the same questions pending in the session are that question
        (its id and deadline), as a blocking ask re-attaches; otherwise they are the 409."""
        agent = auth.agent(request)
        raw = await read_json(request)
        asked = parse_ask_request(raw, text_checked=True)
        key = session_key(session)
        record = (await ask_or_attach(broker, agent.name, key, asked, waiting=False) if attach
                  else await broker.ask(agent.name, key, asked, waiting=False))
        body: dict[str, Any] = {"id": record.id, "status": record.status,
                                "createdAt": iso(record.created_at),
                                "expiresAt": iso(record.expires_at)}
        if warnings := warnings_for(raw, asked):
            body["warnings"] = [w.model_dump() for w in warnings]
        return JSONResponse(body, status_code=202)

    @routes.add("GET", "/questions/{question_id}", operation_id="get_question",
                summary="The whole question record",
                responses=responses({200: ("QuestionRecord", "The record")}, (401, 404)))
    async def get(request: Request, question_id: str) -> JSONResponse:
        record = await own(request, question_id)
        return JSONResponse(await reads.view_of(record))

    @routes.add("GET", "/questions/{question_id}/result", operation_id="get_result",
                summary="Long-poll for the result",
                responses=responses({200: ("AskResult", "The question ended"),
                                     202: ("Pending", "Still pending when the wait ended")},
                                    (401, 404, 422)))
    async def result(request: Request, question_id: str, wait: float = 0) -> JSONResponse:
        record = await own(request, question_id)
        if record.pending and wait > 0:
            record = await broker.wait(record.id, min(wait, 3600.0))
        if record.pending:
            return JSONResponse({"status": "pending"}, status_code=202)
        return JSONResponse(result_json(record))

    @routes.add("POST", "/questions/{question_id}/cancel", operation_id="cancel_question",
                summary="Cancel; an answer that won stays",
                responses=responses({200: ("AskResult", "The final result")}, (401, 404)))
    async def cancel(request: Request, question_id: str) -> JSONResponse:
        record = await own(request, question_id)
        return JSONResponse(result_json(await broker.cancel(record.id)))

    @routes.add("GET", "/sessions/{session}/timeline", operation_id="get_timeline",
                summary="Every question of a session, newest first",
                responses=responses({200: ("Timeline", "Newest first")}, (401, 422)))
    async def timeline(request: Request, session: str, limit: int = 100) -> JSONResponse:
        agent = auth.agent(request)
        items = await reads.timeline_view(AgentName(agent.name), session_key(session),
                                                 max(1, min(limit, 1000)))
        return JSONResponse({"session": session, "questions": items, "keep": reads.keep})

    @routes.add("GET", "/me", operation_id="get_me", summary="Which agent this token belongs to",
                responses=responses({200: ("Me", "The agent")}, (401,)))
    async def me(request: Request) -> JSONResponse:
        agent = auth.agent(request)
        return JSONResponse({"agent": agent.name, "role": agent.role, "surfaces": agent.surfaces,
                             "hostForm": agent.host_form, "locale": str(agent.locale)})

    return routes

