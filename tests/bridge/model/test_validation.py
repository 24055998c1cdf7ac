"""Every rule of the tool's input, each checked for what it accepts and what it rejects."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.model.validation import InvalidRequest, parse_ask_request
from tests.samples import DEPLOY


def base() -> dict[str, Any]:
    return copy.deepcopy(DEPLOY)


def with_(path: str, value: Any) -> dict[str, Any]:
    body = base()
    target: Any = body
    parts = path.split(".")
    for part in parts[:-1]:
        target = target[int(part)] if part.isdigit() else target[part]
    last = parts[-1]
    if last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return body


def problems(body: Any) -> dict[str, str]:
    with pytest.raises(InvalidRequest) as err:
        parse_ask_request(body)
    found: dict[str, str] = {}
    for p in err.value.problems:
        found[p.loc] = f"{found[p.loc]} | {p.msg}" if p.loc in found else p.msg
    return found


def test_valid_request_and_defaults() -> None:
    request = parse_ask_request(base())
    assert request.timeout_seconds == 900
    assert request.questions[0].multi_select is False


@pytest.mark.parametrize("count", [0, 4])
def test_one_to_three_questions(count: int) -> None:
    body = base()
    body["questions"] = [copy.deepcopy(body["questions"][0]) | {"id": f"q{i}"} for i in range(count)]
    assert "questions" in problems(body)


@pytest.mark.parametrize("qid", ["Deploy", "1st", "has-dash", "", "a" * 65, "ünï"])
def test_bad_ids(qid: str) -> None:
    assert "questions[0].id" in problems(with_("questions.0.id", qid))


def test_id_of_64_chars_is_fine() -> None:
    parse_ask_request(with_("questions.0.id", "a" * 64))


def test_duplicate_ids() -> None:
    body = base()
    body["questions"].append(copy.deepcopy(body["questions"][0]))
    assert "already used" in problems(body)["questions[1].id"]


def test_header_is_trimmed_and_cut_to_twelve_without_splitting_a_character() -> None:
    assert parse_ask_request(with_("questions.0.header", "  Deployment target  ")).questions[
        0].header == "Deployment t"
    family = "👨‍👩‍👧"
    cut = parse_ask_request(with_("questions.0.header", "abcdefghijk" + family + "z"))
    assert cut.questions[0].header == "abcdefghijk" + family
    accents = "e\u0301" * 13
    assert parse_ask_request(with_("questions.0.header", accents)).questions[0].header == (
        "e\u0301" * 12)


def test_blank_header_is_rejected() -> None:
    assert "questions[0].header" in problems(with_("questions.0.header", "   "))


def test_question_rules() -> None:
    assert "questions[0].question" in problems(with_("questions.0.question", " "))
    assert "500" in problems(with_("questions.0.question", "x" * 501))["questions[0].question"]
    assert parse_ask_request(with_("questions.0.question", "  Why?  ")).questions[0].question == "Why?"


@pytest.mark.parametrize("count", [1, 5])
def test_two_to_four_options(count: int) -> None:
    opts = [{"label": f"Option {i}"} for i in range(count)]
    assert "questions[0].options" in problems(with_("questions.0.options", opts))


def test_label_rules() -> None:
    loc = "questions[0].options[1].label"
    assert loc in problems(with_("questions.0.options.1", {"label": "  "}))
    assert "64" in problems(with_("questions.0.options.1", {"label": "x" * 65}))[loc]
    trimmed = parse_ask_request(with_("questions.0.options.1", {"label": "  Prod  "}))
    assert trimmed.questions[0].options[1].label == "Prod"


def test_labels_unique_case_insensitively() -> None:
    body = with_("questions.0.options.1", {"label": "staging (recommended)"})
    assert "repeats" in problems(body)["questions[0].options[1].label"]


@pytest.mark.parametrize("label", ["Other", "other…", "OTHER...", "Something else", "Lainnya"])
def test_other_options_are_rejected_with_why(label: str) -> None:
    msg = problems(with_("questions.0.options.1", {"label": label}))["questions[0].options[1].label"]
    assert "own words" in msg


def test_recommended_must_be_first() -> None:
    body = with_("questions.0.options", [{"label": "Production"}, {"label": "Staging (Recommended)"}])
    assert "first option" in problems(body)["questions[0].options[1].label"]


def test_description_rules() -> None:
    blank = parse_ask_request(with_("questions.0.options.1", {"label": "P", "description": " "}))
    assert blank.questions[0].options[1].description is None
    long = with_("questions.0.options.1", {"label": "P", "description": "d" * 201})
    assert "200" in problems(long)["questions[0].options[1].description"]


def test_multiselect_must_be_boolean() -> None:
    assert "questions[0].multiSelect" in problems(with_("questions.0.multiSelect", "yes"))
    assert parse_ask_request(with_("questions.0.multiSelect", True)).questions[0].multi_select


@pytest.mark.parametrize("value", [True, 12.5, "12", None])
def test_timeout_must_be_an_integer(value: Any) -> None:
    body = base() | {"timeoutSeconds": value}
    assert "timeoutSeconds" in problems(body)


@pytest.mark.parametrize(("given_", "clamped"), [(1, 30), (30, 30), (600, 600), (99999, 3600)])
def test_timeout_is_clamped(given_: int, clamped: int) -> None:
    assert parse_ask_request(base() | {"timeoutSeconds": given_}).timeout_seconds == clamped


def test_unknown_keys_rejected_everywhere() -> None:
    body = base() | {"extra": 1}
    body["questions"][0]["multi_select"] = True
    found = problems(body)
    assert "extra" in found and "questions[0].multi_select" in found


def test_every_problem_is_reported_at_once() -> None:
    body = base()
    q = body["questions"][0]
    q["id"] = "Bad"
    q["question"] = ""
    q["options"] = [{"label": "Other"}, {"label": "B (Recommended)"}, {"label": "b (recommended)"}]
    body["timeoutSeconds"] = "60"
    found = problems(body)
    assert {"questions[0].id", "questions[0].question", "questions[0].options[0].label",
            "questions[0].options[1].label", "questions[0].options[2].label",
            "timeoutSeconds"} <= set(found)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                 max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_is_valid_or_a_located_rejection(raw: Any) -> None:
    try:
        parse_ask_request(raw)
    except InvalidRequest as exc:
        assert exc.problems and all(p.loc and p.msg for p in exc.problems)
