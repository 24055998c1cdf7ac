"""What `askbridge mcp` (which asks over HTTP) needs to serve its host as /mcp does in-process:
`POST /v1/questions/{id}/wait`, a blocking wait for the agent's own question (leaving cancels it,
as a blocking ask's does), and `POST /v1/questions/{id}/host-answer`, by which the agent hands in
what its own MCP host's form gave for it."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from bridge.core.blocking_ask import follow
from bridge.core.broker import Broker
from bridge.core.reads import Reads
from bridge.core.receiver import Receiver
from bridge.http.api import Auth, Routes, owned, restarting, result_json, wait_disconnect
from bridge.http.bodies import read_json
from bridge.http.openapi import ERROR_TEXT, responses
from bridge.model.errors import Forbidden
from bridge.model.inbound import host_form_answer
from bridge.model.validation import InvalidRequest, Problem

_BODY = {"requestBody": {"required": True, "content": {"application/json": {
    "schema": {"$ref": "#/components/schemas/HostAnswer"}}}}}
_SHAPE = ('Send {"answers": {"<question id>": ["<label or text>", ...]}} for an answer, or '
          '{"skip": true} for the form\'s decline.')


def _answers(body: Any) -> dict[str, list[str]] | None:
    """The body's answers, None for a skip; a 422 saying the shape when it is neither."""
    if isinstance(body, dict) and body.get("skip") is True and "answers" not in body:
        return None
    given = body.get("answers") if isinstance(body, dict) else None
    if (isinstance(given, dict) and set(body) <= {"answers", "skip"} and body.get("skip") in
            (None, False) and all(isinstance(v, list) and all(isinstance(a, str) for a in v)
                                  for v in given.values())):
        return {str(k): list(v) for k, v in given.items()}
    raise InvalidRequest([Problem(loc="body", msg=_SHAPE)])


def add_attached(routes: Routes, broker: Broker, receiver: Receiver, reads: Reads,
                 auth: Auth) -> None:
    """Register the wait and host-answer routes on the `/v1` routes."""

    @routes.add("POST", "/questions/{question_id}/wait", operation_id="wait_question",
                summary="Block until your question ends; leaving cancels it",
                responses=responses({200: ("AskResult", "The question ended"),
                                     503: ("Restarting", ERROR_TEXT[503])}, (401, 404)))
    async def wait(request: Request, question_id: str) -> JSONResponse:
        record = await owned(reads, auth.agent(request), question_id)
        if not record.pending:
            return JSONResponse(result_json(record))
        outcome, final = await follow(broker, record, lambda: wait_disconnect(request))
        return restarting(final) if outcome == "restarting" else JSONResponse(result_json(final))

    @routes.add("POST", "/questions/{question_id}/host-answer", operation_id="host_answer",
                openapi_extra=_BODY, summary="Hand in the answer your own MCP host's form gave",
                responses=responses({200: ("HostAnswered", "Taken, ignored (the question had "
                                           "ended) or refused with the reason")},
                                    (401, 403, 404, 413, 415, 422)))
    async def host_answer(request: Request, question_id: str) -> JSONResponse:
        agent = auth.agent(request)
        if agent.role != "main":
            raise Forbidden("Only a main agent's host answers its questions; a subagent cannot.")
        record = await owned(reads, agent, question_id)
        answers = _answers(await read_json(request))
        reply = await receiver.host_answered(host_form_answer(record.id, answers))
        refused = None if reply.accepted else reply.text
        return JSONResponse({"accepted": reply.accepted, "message": refused})
