"""Tool input checked against the contract: every problem at once, each a place and a sentence."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from bridge.model.contract import AskRequest, option_count_msg, question_count_msg
from bridge.model.ids import SessionKey
from bridge.model.labels import is_recommended
from bridge.model.text_faults import escaped, text_faults


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
        problems.append(Problem(loc="questions", msg=question_count_msg(len(raw["questions"]))))
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
        problems.append(Problem(loc=f"questions[{qi}].options", msg=option_count_msg(len(options))))
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
                    "trimmed and without case); make every label distinct.",
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


def warnings_for(raw: Any, request: AskRequest) -> list[Problem]:
    """What was changed rather than refused: a header cut to its chip's length."""
    warnings: list[Problem] = []
    for n, (given, question) in enumerate(zip(raw.get("questions", []), request.questions,
                                              strict=False)):
        header = str(given.get("header", "")).strip() if isinstance(given, dict) else ""
        if header != question.header:
            warnings.append(Problem(
                loc=f"questions[{n}].header",
                msg=f"Cut to {question.header!r}: a header shows at most 12 characters."))
    return warnings


def parse_ask_request(raw: Any, *, text_checked: bool = False) -> AskRequest:
    """Validate raw tool input; raise `InvalidRequest` listing every problem at once.
    `text_checked`: `raw` came from `parse_json`, which already refused faulty text (an HTTP
    body), so its strings are not walked a second time."""
    problems = ([] if text_checked else
                [Problem(loc=format_loc(loc), msg=msg) for loc, msg in text_faults(raw)])
    request: AskRequest | None = None
    try:
        request = AskRequest.model_validate(raw)
    except ValidationError as exc:
        problems.extend(_pydantic_problem(e) for e in exc.errors())
    cross = _cross_problems(raw)
    known = {(p.loc, p.msg) for p in problems}
    problems.extend(p for p in cross if (p.loc, p.msg) not in known)
    if problems or request is None:
        # A message may quote the faulty text it is about (a repeated label): escape it.
        raise InvalidRequest([Problem(loc=p.loc, msg=escaped(p.msg)) for p in problems]
                             or [Problem(loc="body", msg="Give a JSON object.")])
    return request


SESSION_PATTERN = re.compile(r"^[A-Za-z0-9._:@-]{1,128}$")
"""A session key: what an agent names its conversation (`main`, `ci:1432`, `ana@laptop`)."""


def session_key(raw: str) -> SessionKey:
    """The session an agent named (the HTTP path, MCP's `X-Askbridge-Session`), or a refusal."""
    if not SESSION_PATTERN.fullmatch(raw):
        raise InvalidRequest([Problem(
            loc="session",
            msg="Use a session key of 1-128 letters, digits or . _ : @ - characters.",
        )])
    return SessionKey(raw)
