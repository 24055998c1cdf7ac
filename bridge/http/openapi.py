"""The OpenAPI document tells the truth: bearer auth, every status a route answers, real bodies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.routing import BaseRoute

from bridge.http.approval_schemas import APPROVAL_LINKS, APPROVAL_SCHEMAS, approval_request_schema
from bridge.model.contract import DESCRIPTION_MAX, ID_PATTERN, LABEL_MAX, QUESTION_MAX, AskRequest
from bridge.model.labels import NOT_SPACE, SPACE, VISIBLE
from bridge.model.validation import SESSION_PATTERN
from bridge.runtime.version import package_version

REF = "#/components/schemas/"
BEARER: list[dict[str, list[str]]] = [{"bearer": []}]
ERROR_TEXT = {401: "No or unknown bearer token (`loc`: header)",
              403: "A subagent may not ask", 404: "No such question (or approval) for this agent",
              405: "Method not allowed; `Allow` lists the ones that are",
              409: "A question is already pending in this session",
              413: "The body is over the size limit (1 MiB by default)",
              415: "The body is declared as something other than JSON",
              422: "The request breaks the contract; every problem is listed",
              503: "askbridge is restarting; the question stays pending (poll its result)"}


def _json(schema: str | dict[str, Any], description: str) -> dict[str, Any]:
    ref = {"$ref": REF + schema} if isinstance(schema, str) else schema
    return {"description": description, "content": {"application/json": {"schema": ref}}}


def responses(ok: dict[int, tuple[str, str]], errors: tuple[int, ...]) -> dict[int | str, Any]:
    """A route's `responses=`: its successes (status → schema, description) and error statuses,
    every error with the one `{"error", "details"}` body."""
    out: dict[int | str, Any] = {s: _json(name, text) for s, (name, text) in ok.items()}
    out.update({s: _json("Error", ERROR_TEXT[s]) for s in (*errors, 405)})
    return out


def _trimmed(limit: int, blank_ok: bool = False) -> dict[str, Any]:
    """Text that is trimmed, then must be 1..limit characters with one visible among them (JSON
    Schema cannot trim, so a pattern says it: optional spaces, the text, optional spaces). The
    spaces are spelled out: JSON Schema's `\\s` is not Python's, which trims."""
    text = rf"{NOT_SPACE}(?:[\s\S]{{0,{limit - 2}}}{NOT_SPACE})?"
    if blank_ok:
        return {"type": "string", "pattern": rf"^{SPACE}*(?:{text})?{SPACE}*$"}
    return {"type": "string", "pattern": rf"^(?=[\s\S]*{VISIBLE}){SPACE}*{text}{SPACE}*$"}


def request_schemas() -> dict[str, Any]:
    """`AskRequest` and its parts, with every limit of the contract that JSON Schema can say
    (and no other: a longer `header` is cut, an out-of-range `timeoutSeconds` clamped)."""
    schema = AskRequest.model_json_schema(by_alias=True, ref_template=REF + "{model}")
    schema["description"] = (
        "The ask_user tool input. Also refused with a 422 naming the field, beyond what this "
        "schema says: two questions with one id, two options of one question whose labels are "
        "equal once trimmed and compared without case (JSON Schema cannot compare items that "
        'way), an "Other" option (free text is always offered), and an option '
        "marked (Recommended) that is not the first.")
    defs: dict[str, Any] = schema.pop("$defs", {})
    # uniqueItems says a little of "ids and labels are unique": equal items are refused.
    schema["properties"]["questions"].update(minItems=1, maxItems=3, uniqueItems=True)
    question = defs["Question"]["properties"]
    question["id"].update(pattern=ID_PATTERN.pattern, maxLength=64)
    question["header"].update(pattern=VISIBLE)
    question["question"].update(_trimmed(QUESTION_MAX))
    question["options"].update(minItems=2, maxItems=4, uniqueItems=True)
    option = defs["Option"]["properties"]
    option["label"].update(_trimmed(LABEL_MAX))
    option["description"]["anyOf"][0].update(_trimmed(DESCRIPTION_MAX, blank_ok=True))
    return {**defs, "AskRequest": schema}


def _object(required: list[str], **props: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": props}


STRING = {"type": "string"}
TIME = {"type": "string", "format": "date-time"}
NULLABLE_STRING = {"type": ["string", "null"]}
RESPONSE_SCHEMAS: dict[str, Any] = {
    "Error": _object(["error", "details"], error=STRING, details={
        "type": "array", "minItems": 1,
        "items": _object(["loc", "msg"], loc=STRING, msg=STRING)}, pendingId={
        "type": "string", "description": "On a 409: the question pending in the session"}),
    "Answered": {**_object(["status", "answers"], status={"const": "answered"}, answers=_object(
        ["answers"], answers={"type": "object", "additionalProperties": _object(
            ["answers"], answers={"type": "array", "items": STRING})})),
        "additionalProperties": False},
    "NoAnswer": {**_object(["status", "reason"], status={"const": "no_answer"}, reason={
        "enum": ["expired", "skipped", "cancelled", "undelivered"]}),
        "additionalProperties": False},
    "AskResult": {"oneOf": [{"$ref": REF + "Answered"}, {"$ref": REF + "NoAnswer"}]},
    "Pending": {**_object(["status"], status={"const": "pending"}), "additionalProperties": False},
    "Created": _object(["id", "status", "createdAt", "expiresAt"], id=STRING,
                       status={"const": "pending"}, createdAt=TIME, expiresAt=TIME, warnings={
                           "type": "array", "description": "What was changed, not refused (a "
                           "header cut to 12 characters)",
                           "items": _object(["loc", "msg"], loc=STRING, msg=STRING)}),
    "QuestionList": _object(["questions", "nextCursor"], questions={
        "type": "array", "items": {"$ref": REF + "QuestionRecord"}}, nextCursor={
        "type": ["string", "null"], "description": "Pass as `cursor` for the next page; null "
        "on the last"}),
    "Delivery": _object(["surface", "state", "finalized"], surface=STRING, state=STRING,
                        messageRef=NULLABLE_STRING, error=NULLABLE_STRING,
                        finalized={"type": "boolean"}, tier={"type": "integer", "minimum": 0},
                        deliveredAt={"anyOf": [TIME, {"type": "null"}]},
                        reminders={"type": "integer", "minimum": 0}),
    "QuestionRecord": _object(
        ["id", "agent", "session", "status", "request", "surfaces", "deliveries", "createdAt",
         "expiresAt", "resolvedAt", "answeredBy", "result"],
        id=STRING, agent=STRING, session=STRING,
        status={"enum": ["pending", "answered", "no_answer"]},
        reason={"enum": ["expired", "skipped", "cancelled", "undelivered"]},
        request={"$ref": REF + "AskRequest"}, surfaces={"type": "array", "items": STRING},
        deliveries={"type": "array", "items": {"$ref": REF + "Delivery"}},
        createdAt=TIME, expiresAt=TIME, resolvedAt={"anyOf": [TIME, {"type": "null"}]},
        summary=NULLABLE_STRING,
        answeredBy={"anyOf": [_object(["surface", "user"], surface=STRING, user=STRING),
                              {"type": "null"}]},
        result={"anyOf": [{"$ref": REF + "AskResult"}, {"type": "null"}]}),
    "Timeline": _object(["session", "questions", "keep"], session=STRING, questions={
        "type": "array", "items": {"$ref": REF + "QuestionRecord"}}, keep={
        "type": "string", "description": "How long an ended question is kept before it is "
        "deleted: `[store] keep` (`90s`, `12h`, `30d`, or `forever`)."}),
    "Me": _object(["agent", "role", "surfaces", "hostForm", "locale"], agent=STRING,
                  locale={"type": "string", "description": "The agent's `locale` (`en`, `id`)"},
                  role={"enum": ["main", "subagent"]}, surfaces={"type": "array", "items": STRING},
                  hostForm={"enum": ["race", "off"], "description": "Whether an MCP host's own "
                            "form is offered (`host_form`): `race` or `off`"}),
    "HostAnswer": _object([], answers={
        "type": "object", "description": "Per question id, the chosen labels and free text",
        "additionalProperties": {"type": "array", "items": STRING}}, skip={
        "type": "boolean", "description": "True for the form's decline: Skip"}),
    "HostAnswered": _object(["accepted"], accepted={"type": "boolean"}, message={
        "type": ["string", "null"], "description": "Why the answer was refused (ask again "
        "saying it), or null"}),
    "Restarting": {"allOf": [{"$ref": REF + "Error"}, _object(["id"], id=STRING)]},
}


def _links(**targets: tuple[str, str]) -> dict[str, Any]:
    """OpenAPI links, what a client (or a stateful fuzzer) does next with a response:
    link name → (operation, where that operation's one parameter comes from)."""
    return {name: {"operationId": operation, "parameters": {
        "session" if "session" in source else "question_id": source}}
        for name, (operation, source) in targets.items()}


QUESTION_ID = "$response.body#/id"
LINKS = {
    ("create_question", "202"): _links(GetQuestion=("get_question", QUESTION_ID),
                                       GetResult=("get_result", QUESTION_ID),
                                       CancelQuestion=("cancel_question", QUESTION_ID),
                                       Timeline=("get_timeline", "$request.path.session")),
    ("get_question", "200"): _links(CancelQuestion=("cancel_question", QUESTION_ID),
                                    GetResult=("get_result", QUESTION_ID),
                                    Timeline=("get_timeline", "$response.body#/session")),
}


def _add_links(paths: dict[str, Any]) -> None:
    operations = {op.get("operationId"): op for ops in paths.values() for op in ops.values()}
    for (operation, status), links in {**LINKS, **APPROVAL_LINKS}.items():
        if operation in operations:
            operations[operation]["responses"][status]["links"] = links


def webhook_path(channels: list[str]) -> dict[str, Any]:
    """`POST /v1/channels/webhook/{name}`: a text channel's gateway hands in a person's reply,
    signed with the channel secret (the adapter's route; documented here with the API)."""
    reply = _object(["conversation", "sender", "text"],
                    conversation={"type": "string", "minLength": 1, "maxLength": 256},
                    sender={"type": "string", "minLength": 1, "maxLength": 256},
                    text={"type": "string", "maxLength": 8000},
                    replyTo={"type": ["string", "null"], "maxLength": 256})
    outcome = _object(["accepted", "reply"], accepted={"type": "boolean"}, reply=STRING)
    errors = {**responses({200: ("ReplyOutcome", "Whether the text answered, and what to tell "
                                 "the person")}, (401, 404, 413, 415, 422, 503)),
              401: _json("Error", "Missing or wrong X-Askbridge-Signature, or a stale or "
                         "replayed timestamp"),
              404: _json("Error", "No webhook channel of that name"),
              503: _json("Error", "askbridge is starting; try again in a moment")}
    return {"/v1/channels/webhook/{name}": {"post": {
        "tags": ["channels"], "summary": "A person's reply from a webhook text channel",
        "operationId": "webhook_reply",
        "parameters": [{"name": "name", "in": "path", "required": True,
                        "schema": {"type": "string", "enum": channels}}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": reply}}},
        "security": [{"signature": []}], "responses": {str(k): v for k, v in errors.items()},
    }}, "components": {"ReplyOutcome": outcome}}


def _drop_fastapi_422(operation: dict[str, Any]) -> None:
    """FastAPI documents a 422 of its own shape on every route with parameters; ours have the
    one error body, and routes whose parameters cannot fail (a path string) have no 422."""
    invalid = operation["responses"].get("422", {})
    schema = invalid.get("content", {}).get("application/json", {}).get("schema", {})
    if schema.get("$ref", "").endswith("/HTTPValidationError"):
        del operation["responses"]["422"]


TITLE = "askbridge"
SUMMARY = "ask_user as a service: agents ask, people answer from any surface."


def document(routes: Sequence[BaseRoute], webhook_channels: list[str]) -> dict[str, Any]:
    """The whole document for FastAPI `routes` declared for it (and the webhook route when
    channels are configured). FastAPI is imported here, on the document's first request."""
    from fastapi.openapi.utils import get_openapi

    schema = get_openapi(title=TITLE, version=package_version(), summary=SUMMARY,
                         routes=routes)
    components = schema.setdefault("components", {})
    components.setdefault("schemas", {}).update({**request_schemas(), **RESPONSE_SCHEMAS,
                                                 **APPROVAL_SCHEMAS,
                                                 "ApprovalRequest": approval_request_schema()})
    components["securitySchemes"] = {
        "bearer": {"type": "http", "scheme": "bearer",
                   "description": "The agent's token from the config (`token_env`)."},
        "signature": {"type": "apiKey", "in": "header", "name": "X-Askbridge-Signature",
                      "description": "sha256=<hex HMAC-SHA256 of the body with the channel "
                      "secret>"}}
    for path, operations in schema["paths"].items():
        for operation in operations.values():
            if path.startswith("/v1/"):
                operation.setdefault("security", BEARER)
            _drop_fastapi_422(operation)
            for parameter in operation.get("parameters", []):
                if parameter["name"] == "session":
                    parameter["schema"].update(pattern=SESSION_PATTERN.pattern)
    for unused in ("HTTPValidationError", "ValidationError"):
        components["schemas"].pop(unused, None)
    _add_links(schema["paths"])
    if webhook_channels:
        extra = webhook_path(webhook_channels)
        components["schemas"].update(extra.pop("components"))
        schema["paths"].update(extra)
    return schema
