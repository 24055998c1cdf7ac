"""The tool contract: `AskRequest` in, `AskResult` out, and every validation rule of the input."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    field_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from bridge.model.labels import cut_graphemes, is_other_label, visible

DEFAULT_TIMEOUT = 900
MIN_TIMEOUT = 30
MAX_TIMEOUT = 3600
HEADER_MAX = 12
QUESTION_MAX = 500
LABEL_MAX = 64
DESCRIPTION_MAX = 200
ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")

NoAnswerReason = Literal["expired", "skipped", "cancelled", "undelivered"]


def option_count_msg(count: int) -> str:
    return f"Give 2 to 4 options, not {count}; free text is always allowed besides them."


def question_count_msg(count: int) -> str:
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
        if not visible(value):
            raise _fail("blank", "The option label is empty (or only spaces and control "
                        "characters); give every option a short label.")
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
        if not visible(value):
            raise _fail("blank", "The header is empty (or only spaces and control characters); "
                        "give a short label such as `Deploy`.")
        return cut_graphemes(value, HEADER_MAX)

    @field_validator("question", mode="after")
    @classmethod
    def _question(cls, value: str) -> str:
        value = value.strip()
        if not visible(value):
            raise _fail("blank", "The question is empty (or only spaces and control "
                        "characters); ask one clear sentence.")
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
            raise _fail("option_count", option_count_msg(len(value)))
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
            raise _fail("question_count", question_count_msg(len(value)))
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


def tool_input_schema() -> dict[str, Any]:
    """The JSON schema agents see for `ask_user` (camelCase, unknown keys rejected), with the
    contract's limits a host can check before calling (lengths count the trimmed text; a
    longer header is cut rather than refused, so it has no maximum here)."""
    schema = AskRequest.model_json_schema(by_alias=True)
    schema["properties"]["questions"].update(minItems=1, maxItems=3)
    question = schema["$defs"]["Question"]["properties"]
    question["id"].update(pattern=ID_PATTERN.pattern, maxLength=64)
    question["header"].update(minLength=1)
    question["question"].update(minLength=1, maxLength=QUESTION_MAX)
    question["options"].update(minItems=2, maxItems=4)
    option = schema["$defs"]["Option"]["properties"]
    option["label"].update(minLength=1, maxLength=LABEL_MAX)
    option["description"]["anyOf"][0].update(maxLength=DESCRIPTION_MAX)
    return schema
