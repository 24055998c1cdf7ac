"""The tool contract: `AskRequest` in, `AskResult` out, and every validation rule of DESIGN §1."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from bridge.labels import cut_graphemes, is_other_label, is_recommended

DEFAULT_TIMEOUT = 900
MIN_TIMEOUT = 30
MAX_TIMEOUT = 3600
HEADER_MAX = 12
QUESTION_MAX = 500
LABEL_MAX = 64
DESCRIPTION_MAX = 200
ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")

NoAnswerReason = Literal["expired", "skipped", "cancelled", "undelivered"]


def _option_count_msg(count: int) -> str:
    return f"Give 2 to 4 options, not {count}; free text is always allowed besides them."


def _question_count_msg(count: int) -> str:
    return f"Ask 1 to 3 questions, not {count}; prefer one."


def _fail(kind: str, message: str) -> PydanticCustomError:
    return PydanticCustomError(kind, message)


class _Frozen(BaseModel):
    model_config = ConfigDict(
        frozen=True, extra="forbid", alias_generator=to_camel
    )


class Option(_Frozen):
    label: Annotated[str, Field(description="The option's text, at most 64 characters.")]
    description: Annotated[
        str | None, Field(default=None, description="Optional, at most 200 characters.")
    ] = None

    @field_validator("label", mode="after")
    @classmethod
    def _label(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise _fail("blank", "The option label is empty; give every option a short label.")
        if len(value) > LABEL_MAX:
            raise _fail(
                "too_long",
                f"The option label has {len(value)} characters; keep it to {LABEL_MAX} "
                "(Telegram's button limit) and move detail into `description`.",
            )
        if is_other_label(value):
            raise _fail(
                "other_option",
                f'Remove the "{value}" option: people can always answer in their own words, '
                "so an Other option is added automatically.",
            )
        return value

    @field_validator("description", mode="after")
    @classmethod
    def _description(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        if len(value) > DESCRIPTION_MAX:
            raise _fail(
                "too_long",
                f"The description has {len(value)} characters; keep it to {DESCRIPTION_MAX}.",
            )
        return value


class Question(_Frozen):
    id: Annotated[str, Field(description="Answer key: ^[a-z][a-z0-9_]*$, at most 64 characters.")]
    header: Annotated[str, Field(description="A short chip label; cut to 12 characters.")]
    question: Annotated[str, Field(description="One sentence, at most 500 characters.")]
    options: Annotated[
        list[Option], Field(description="2 to 4 options; free text is always allowed too.")
    ]
    multi_select: Annotated[
        StrictBool, Field(default=False, description="Allow choosing several options.")
    ] = False

    @field_validator("id", mode="after")
    @classmethod
    def _id(cls, value: str) -> str:
        if len(value) > 64 or not ID_PATTERN.match(value):
            raise _fail(
                "bad_id",
                "Use a lowercase id of at most 64 characters that starts with a letter and "
                "holds only a-z, 0-9 and _ (for example `deploy_target`).",
            )
        return value

    @field_validator("header", mode="after")
    @classmethod
    def _header(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise _fail("blank", "The header is empty; give a short label such as `Deploy`.")
        return cut_graphemes(value, HEADER_MAX)

    @field_validator("question", mode="after")
    @classmethod
    def _question(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise _fail("blank", "The question is empty; ask one clear sentence.")
        if len(value) > QUESTION_MAX:
            raise _fail(
                "too_long",
                f"The question has {len(value)} characters; keep it to one sentence of at "
                f"most {QUESTION_MAX}.",
            )
        return value

    @field_validator("options", mode="after")
    @classmethod
    def _options_count(cls, value: list[Option]) -> list[Option]:
        if not 2 <= len(value) <= 4:
            raise _fail("option_count", _option_count_msg(len(value)))
        return value


class AskRequest(_Frozen):
    """The `ask_user` tool input."""

    questions: Annotated[list[Question], Field(description="1 to 3 questions; prefer one.")]
    timeout_seconds: Annotated[
        StrictInt,
        Field(default=DEFAULT_TIMEOUT, description="Seconds to wait; clamped to 30..3600."),
    ] = DEFAULT_TIMEOUT

    @field_validator("questions", mode="after")
    @classmethod
    def _question_count(cls, value: list[Question]) -> list[Question]:
        if not 1 <= len(value) <= 3:
            raise _fail("question_count", _question_count_msg(len(value)))
        return value

    @field_validator("timeout_seconds", mode="after")
    @classmethod
    def _clamp(cls, value: int) -> int:
        return max(MIN_TIMEOUT, min(MAX_TIMEOUT, value))


class QuestionAnswer(_Frozen):
    answers: list[str]


class Answers(_Frozen):
    answers: dict[str, QuestionAnswer]


class AskResult(_Frozen):
    """`{"status": "answered", "answers": {"answers": {id: {"answers": [...]}}}}` or no_answer."""

    status: Literal["answered", "no_answer"]
    answers: Answers | None = None
    reason: NoAnswerReason | None = None

    @classmethod
    def answered(cls, answers: dict[str, list[str]]) -> AskResult:
        return cls(
            status="answered",
            answers=Answers(answers={k: QuestionAnswer(answers=v) for k, v in answers.items()}),
        )

    @classmethod
    def no_answer(cls, reason: NoAnswerReason) -> AskResult:
        return cls(status="no_answer", reason=reason)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    def answer_map(self) -> dict[str, list[str]]:
        if self.answers is None:
            return {}
        return {k: list(v.answers) for k, v in self.answers.answers.items()}


class Problem(BaseModel):
    """One validation problem: where (`questions[1].options[0].label`) and what to do."""

    model_config = ConfigDict(frozen=True)
    loc: str
    msg: str


class InvalidRequest(Exception):
    """An `AskRequest` that breaks the contract; `problems` lists every one of them."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(f"{p.loc}: {p.msg}" for p in problems))
        self.problems = problems


def format_loc(parts: tuple[int | str, ...]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "body"


_TYPE_MESSAGES = {
    "missing": "This field is required.",
    "int_type": "Give a whole number of seconds, for example 300.",
    "int_parsing": "Give a whole number of seconds, for example 300.",
    "bool_type": "Give true or false.",
    "string_type": "Give a string.",
    "list_type": "Give a list.",
    "model_type": "Give an object.",
    "dict_type": "Give an object.",
}


def _pydantic_problem(err: Any) -> Problem:
    loc = format_loc(tuple(err["loc"]))
    kind = err["type"]
    if kind == "extra_forbidden":
        field = err["loc"][-1]
        return Problem(loc=loc, msg=f"Unknown field `{field}`; remove it (see the tool schema).")
    if kind in ("int_from_float",):
        return Problem(loc=loc, msg="Give a whole number of seconds, for example 300.")
    return Problem(loc=loc, msg=_TYPE_MESSAGES.get(kind, str(err["msg"])))


def _cross_problems(raw: Any) -> list[Problem]:
    """Checks that span several fields, run on the raw input so they report alongside the rest."""
    problems: list[Problem] = []
    if not isinstance(raw, dict) or not isinstance(raw.get("questions"), list):
        return problems
    if not 1 <= len(raw["questions"]) <= 3:
        problems.append(Problem(loc="questions", msg=_question_count_msg(len(raw["questions"]))))
    seen_ids: dict[str, int] = {}
    for qi, q in enumerate(raw["questions"]):
        if not isinstance(q, dict):
            continue
        qid = q.get("id")
        if isinstance(qid, str):
            if qid in seen_ids:
                problems.append(
                    Problem(
                        loc=f"questions[{qi}].id",
                        msg=f"The id `{qid}` is already used by questions[{seen_ids[qid]}]; "
                        "give every question its own id.",
                    )
                )
            else:
                seen_ids[qid] = qi
        problems.extend(_option_problems(qi, q.get("options")))
    return problems


def _option_problems(qi: int, options: Any) -> list[Problem]:
    problems: list[Problem] = []
    if not isinstance(options, list):
        return problems
    if not 2 <= len(options) <= 4:
        problems.append(Problem(loc=f"questions[{qi}].options", msg=_option_count_msg(len(options))))
    seen: dict[str, int] = {}
    for oi, opt in enumerate(options):
        label = opt.get("label") if isinstance(opt, dict) else None
        if not isinstance(label, str) or not label.strip():
            continue
        key = label.strip().casefold()
        loc = f"questions[{qi}].options[{oi}].label"
        if key in seen:
            problems.append(
                Problem(
                    loc=loc,
                    msg=f'"{label.strip()}" repeats options[{seen[key]}] (labels are compared '
                    "without case); make every label distinct.",
                )
            )
        else:
            seen[key] = oi
        if oi > 0 and is_recommended(label):
            problems.append(
                Problem(
                    loc=loc,
                    msg="Only the first option may be marked (Recommended): move this option "
                    "to the top of the list, or drop the marker.",
                )
            )
    return problems


def parse_ask_request(raw: Any) -> AskRequest:
    """Validate raw tool input; raise `InvalidRequest` listing every problem at once."""
    problems: list[Problem] = []
    request: AskRequest | None = None
    try:
        request = AskRequest.model_validate(raw)
    except ValidationError as exc:
        problems.extend(_pydantic_problem(e) for e in exc.errors())
    cross = _cross_problems(raw)
    known = {(p.loc, p.msg) for p in problems}
    problems.extend(p for p in cross if (p.loc, p.msg) not in known)
    if problems or request is None:
        raise InvalidRequest(problems or [Problem(loc="body", msg="Give a JSON object.")])
    return request


def tool_input_schema() -> dict[str, Any]:
    """The JSON schema agents see for `ask_user` (camelCase, unknown keys rejected)."""
    return AskRequest.model_json_schema(by_alias=True)
