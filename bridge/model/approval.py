"""The approval contract: `ApprovalRequest` in, `ApprovalResult` out, and every rule of the input."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import jsonschema  # type: ignore[import-untyped]  # no stubs; validators and errors only
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError, field_validator
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from bridge.model.canonical import CanonicalError, canonical, payload_hash
from bridge.model.contract import DEFAULT_TIMEOUT, MAX_TIMEOUT, MIN_TIMEOUT
from bridge.model.labels import visible
from bridge.model.text_faults import escaped, text_faults
from bridge.model.validation import InvalidRequest, Problem, _pydantic_problem, format_loc

ACTION_MAX = 200
TOOL_MAX = 64
ARGUMENTS_MAX = 16 * 1024
"""Bytes of the canonical (RFC 8785) arguments."""
Risk = Literal["low", "medium", "high"]
ApprovalStatus = Literal["pending", "approved", "rejected", "no_answer"]
ApprovalNoAnswer = Literal["expired", "cancelled", "undelivered"]
Scope = Literal["once", "rule"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", alias_generator=to_camel,
                              populate_by_name=True)


def _blank(what: str, example: str) -> PydanticCustomError:
    return PydanticCustomError("blank", f"The {what} is empty (or only spaces and control "
                               f"characters); {example}.")


class ApprovalRequest(_Frozen):
    """The `request_approval` tool input: an action a person approves before the agent runs it."""

    action: Annotated[str, Field(description="What will happen, in one sentence; at most 200 "
                                             "characters.")]
    tool: Annotated[str | None, Field(default=None, description="The tool about to run, at "
                                                                "most 64 characters.")] = None
    arguments: Annotated[dict[str, Any] | None, Field(
        default=None, description="The tool's arguments (a JSON object, at most 16 KiB as "
                                  "canonical JSON): what the person approves.")] = None
    arguments_schema: Annotated[dict[str, Any] | None, Field(
        default=None, description="A JSON Schema that edited arguments must satisfy.")] = None
    risk: Annotated[Risk, Field(default="medium", description="low, medium or high.")] = "medium"
    allow_edit: Annotated[StrictBool | None, Field(
        default=None, description="May the person edit the arguments (default: true when "
                                  "arguments are given)."
    )] = None
    timeout_seconds: Annotated[StrictInt, Field(
        default=DEFAULT_TIMEOUT, description="Seconds to wait; clamped to 30..3600.")] = DEFAULT_TIMEOUT

    @field_validator("action", mode="after")
    @classmethod
    def _action(cls, value: str) -> str:
        value = value.strip()
        if not visible(value):
            raise _blank("action", "say what will happen, for example `Deploy web to production`")
        if len(value) > ACTION_MAX:
            raise PydanticCustomError("too_long", f"The action has {len(value)} characters; say "
                                      f"it in at most {ACTION_MAX} and put detail in `arguments`.")
        return value

    @field_validator("tool", mode="after")
    @classmethod
    def _tool(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        if not visible(value):
            raise _blank("tool name", "give the tool's name or leave `tool` out")
        if len(value) > TOOL_MAX:
            raise PydanticCustomError("too_long", f"The tool name has {len(value)} characters; "
                                      f"keep it to {TOOL_MAX}.")
        return value

    @field_validator("timeout_seconds", mode="after")
    @classmethod
    def _clamp(cls, value: int) -> int:
        return max(MIN_TIMEOUT, min(MAX_TIMEOUT, value))

    @property
    def editable(self) -> bool:
        """Whether the person may edit the arguments: `allowEdit`, else whether there are any."""
        return self.allow_edit if self.allow_edit is not None else self.arguments is not None

    @property
    def payload(self) -> dict[str, Any]:
        """The arguments as approved: the object given, or `{}` without one."""
        return dict(self.arguments or {})

    @property
    def payload_hash(self) -> str:
        return payload_hash(self.payload)


def arguments_problems(arguments: Any, schema: dict[str, Any] | None,
                       loc: str = "arguments") -> list[Problem]:
    """What is wrong with `arguments` (given by the agent, or edited by a person): not an
    object, not canonical JSON, over 16 KiB, or against `schema`."""
    if not isinstance(arguments, dict):
        return [Problem(loc=loc, msg="Give the arguments as a JSON object.")]
    try:
        size = len(canonical(arguments))
    except CanonicalError:
        return [Problem(loc=loc, msg="The arguments hold a number JSON cannot say exactly (NaN, "
                        "an infinity, or an integer beyond ±2^53); send it as a string.")]
    if size > ARGUMENTS_MAX:
        return [Problem(loc=loc, msg=f"The arguments are {size} bytes as canonical JSON; keep "
                        f"them to {ARGUMENTS_MAX} (16 KiB) and leave bulky data out.")]
    if schema is None:
        return []
    try:
        error = jsonschema.exceptions.best_match(
            jsonschema.validators.validator_for(schema)(schema).iter_errors(arguments))
    except jsonschema.exceptions.SchemaError:
        return []  # the schema itself was refused already, by name
    except Exception:  # a `$ref` nothing resolves (remote ones are never fetched)
        return [Problem(loc="argumentsSchema", msg="The schema refers (`$ref`) to something "
                        "that cannot be resolved here; inline it.")]
    if error is None:
        return []
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return [Problem(loc=loc + where, msg=f"The arguments do not satisfy argumentsSchema: "
                    f"{error.message}.")]


def _schema_problems(raw: dict[str, Any]) -> list[Problem]:
    schema = raw.get("argumentsSchema")
    if not isinstance(schema, dict):
        return []
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        return [Problem(loc="argumentsSchema", msg=f"This is not a valid JSON Schema: "
                        f"{exc.message}; fix it or leave `argumentsSchema` out.")]
    return []


def parse_approval_request(raw: Any) -> ApprovalRequest:
    """Validate raw `request_approval` input; raise `InvalidRequest` with every problem at once."""
    problems = [Problem(loc=format_loc(loc), msg=msg) for loc, msg in text_faults(raw)]
    request: ApprovalRequest | None = None
    try:
        request = ApprovalRequest.model_validate(raw, by_alias=True, by_name=False)
    except ValidationError as exc:
        problems.extend(_pydantic_problem(e) for e in exc.errors())
    if isinstance(raw, dict):
        problems.extend(_schema_problems(raw))
        if isinstance(raw.get("arguments"), dict) and not problems:
            problems.extend(arguments_problems(raw["arguments"], raw.get("argumentsSchema")))
        elif isinstance(raw.get("arguments"), dict):
            problems.extend(p for p in arguments_problems(raw["arguments"], None))
    if problems or request is None:
        raise InvalidRequest([Problem(loc=p.loc, msg=escaped(p.msg)) for p in problems]
                             or [Problem(loc="body", msg="Give a JSON object.")])
    return request


class DecidedBy(_Frozen):
    surface: str
    user: str


class ApprovalResult(_Frozen):
    """`approved` (with the arguments to run), `rejected` (with the reason) or `no_answer`."""

    status: Literal["approved", "rejected", "no_answer"]
    arguments: dict[str, Any] | None = None
    edited: bool | None = None
    scope: Scope | None = None
    reason: str | None = None
    decided_by: list[DecidedBy] | None = None

    @classmethod
    def approved(cls, arguments: dict[str, Any], edited: bool, scope: Scope,
                 by: list[DecidedBy]) -> ApprovalResult:
        return cls(status="approved", arguments=arguments, edited=edited, scope=scope,
                   decided_by=by)

    @classmethod
    def rejected(cls, reason: str, by: list[DecidedBy]) -> ApprovalResult:
        return cls(status="rejected", reason=reason, decided_by=by)

    @classmethod
    def no_answer(cls, reason: ApprovalNoAnswer) -> ApprovalResult:
        return cls(status="no_answer", reason=reason)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def approval_input_schema() -> dict[str, Any]:
    """The JSON schema agents see for `request_approval` (camelCase, unknown keys rejected)."""
    schema = ApprovalRequest.model_json_schema(by_alias=True)
    props = schema["properties"]
    props["action"].update(minLength=1, maxLength=ACTION_MAX)
    props["tool"]["anyOf"][0].update(minLength=1, maxLength=TOOL_MAX)
    return schema
