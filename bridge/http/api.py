"""The agents' HTTP API (`/v1`): ask, poll, cancel, timeline; bearer tokens; JSON errors."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Literal, get_type_hints

import structlog
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bridge.broker import Broker
from bridge.config import AgentConfig
from bridge.contract import AskRequest
from bridge.errors import NotFound, Unauthorized, error_body
from bridge.http.bodies import read_json
from bridge.http.openapi import ERROR_TEXT, SESSION_PATTERN, responses
from bridge.ids import AgentName, QuestionId, SessionKey
from bridge.security import bearer, match_token
from bridge.store.records import QuestionRecord, iso
from bridge.validation import InvalidRequest, Problem, parse_ask_request

log = structlog.get_logger("askbridge.api")


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
        return self.broker.surfaces.agent(name)


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
    body = error_body("restarting", [{"loc": "server", "msg": "askbridge is restarting; the "
                                      "question stays pending. Poll GET /v1/questions/"
                                      f"{record.id}/result?wait=60 until it answers."}])
    body["id"] = record.id
    return JSONResponse(body, status_code=503, headers={"Retry-After": "1"})


Outcome = Literal["ended", "restarting", "client_disconnected"]


async def first_outcome(request: Request, broker: Broker, record: QuestionRecord,
                        ) -> tuple[Outcome, QuestionRecord]:
    """Wait for the question to end, the server to drain or the client to leave, whichever
    comes first (an ending that raced a departure still counts as the ending).

    The wait for the end is this request's own await, not a task of its own: the step that
    wakes it writes the answer, so nothing the resolver does next runs before it."""
    why: list[Outcome] = []
    deadline = asyncio.timeout(None)

    async def interrupt(outcome: Outcome, happened: Awaitable[object]) -> None:
        await happened
        why.append(outcome)
        deadline.reschedule(asyncio.get_running_loop().time())

    watchers = [asyncio.create_task(interrupt("restarting", broker.draining.wait())),
                asyncio.create_task(interrupt("client_disconnected", wait_disconnect(request)))]
    try:
        async with deadline:
            return "ended", await broker.wait(record.id, None)
    except TimeoutError:
        now = await broker.get(record.id)
        return ("ended", now) if not now.pending else (why[0], record)
    finally:
        for task in watchers:
            task.cancel()


async def abandon(broker: Broker, record: QuestionRecord, reason: str) -> QuestionRecord:
    """The waiting agent is gone: cancel its question (an answer that won stays) and say so in
    one line; a departing client is normal, not an error."""
    final = await broker.cancel(record.id)
    log.info("ask_abandoned", question_id=record.id, reason=reason, status=final.status)
    return final


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


def query(request: Request, name: str, kind: type[Any], default: Any) -> Any:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        return kind(raw)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise InvalidRequest([Problem(loc=f"query.{name}",
                                      msg=f"Give `{name}` as {what}, for example {default}.")]
                             ) from None


def build_routes(broker: Broker, auth: Auth) -> Routes:
    routes = Routes("/v1", ["agents"])

    async def own(request: Request, question_id: str) -> QuestionRecord:
        agent = auth.agent(request)
        record = await broker.reads.record(QuestionId(question_id))
        if record is None or record.agent != agent.name:
            raise NotFound(f"There is no question {question_id!r} for this agent.")
        return record

    @routes.add("POST", "/sessions/{session}/ask", operation_id="ask", openapi_extra=_ASK_BODY,
                responses=responses({200: ("AskResult", "The question ended"),
                                     503: ("Restarting", ERROR_TEXT[503])},
                                    (401, 403, 409, 413, 415, 422)),
                summary="Ask and block until the person answers or the question ends")
    async def ask(request: Request, session: str) -> JSONResponse:
        agent = auth.agent(request)
        check_session(session)
        record = await broker.ask(agent.name, session, await read_ask(request))
        try:
            outcome, final = await first_outcome(request, broker, record)
        except asyncio.CancelledError:  # the server itself ended the request
            if not broker.draining.is_set():
                await asyncio.shield(abandon(broker, record, "request_cancelled"))
            raise
        if outcome == "restarting":
            return restarting(record)
        if outcome == "client_disconnected":
            final = await abandon(broker, record, outcome)
        return JSONResponse(result_json(final))

    @routes.add("POST", "/sessions/{session}/questions", operation_id="create_question",
                status_code=202, openapi_extra=_ASK_BODY,
                responses=responses({202: ("Created", "Asked; poll the result")},
                                    (401, 403, 409, 413, 415, 422)),
                summary="Ask without blocking; poll the result")
    async def create(request: Request, session: str) -> JSONResponse:
        agent = auth.agent(request)
        check_session(session)
        record = await broker.ask(agent.name, session, await read_ask(request), waiting=False)
        return JSONResponse({"id": record.id, "status": record.status,
                             "expiresAt": iso(record.expires_at)}, status_code=202)

    @routes.add("GET", "/questions/{question_id}", operation_id="get_question",
                summary="The whole question record",
                responses=responses({200: ("QuestionRecord", "The record")}, (401, 404)))
    async def get(request: Request, question_id: str) -> JSONResponse:
        record = await own(request, question_id)
        return JSONResponse(await broker.reads.view_of(record))

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
        check_session(session)
        items = await broker.reads.timeline_view(AgentName(agent.name), SessionKey(session),
                                                 max(1, min(limit, 1000)))
        return JSONResponse({"session": session, "questions": items})

    @routes.add("GET", "/me", operation_id="get_me", summary="Which agent this token belongs to",
                responses=responses({200: ("Me", "The agent")}, (401,)))
    async def me(request: Request) -> JSONResponse:
        agent = auth.agent(request)
        return JSONResponse({"agent": agent.name, "role": agent.role, "surfaces": agent.surfaces})

    return routes

