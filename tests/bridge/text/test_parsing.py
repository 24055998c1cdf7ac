"""The reply parser: DESIGN §5's table first, then several questions, then properties."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.model.contract import AskRequest, Question
from bridge.text.parsing import Parsed, Skip, parse_reply


def questions(*specs: dict[str, Any]) -> list[Question]:
    return list(AskRequest.model_validate({"questions": list(specs)}).questions)


DEPLOY = {"id": "env", "header": "Deploy", "question": "Where?",
          "options": [{"label": "Staging (Recommended)"}, {"label": "Production"},
                      {"label": "Canary"}]}
CHECKS = {"id": "checks", "header": "Checks", "question": "Which checks?", "multiSelect": True,
          "options": [{"label": "Lint"}, {"label": "Test"}, {"label": "Build"},
                      {"label": "Deploy"}]}


def answer_of(outcome: object, qid: str) -> list[str]:
    assert isinstance(outcome, Parsed), outcome
    assert not outcome.problems, outcome.problems
    return outcome.answers[qid]


@pytest.mark.parametrize(("reply", "expected"), [
    ("2", ["Production"]),
    (" production ", ["Production"]),
    ("staging", ["Staging (Recommended)"]),
    ("Staging (Recommended)", ["Staging (Recommended)"]),
    ("deploy to the moon", ["deploy to the moon"]),
])
def test_design_table_single_select(reply: str, expected: list[str]) -> None:
    assert answer_of(parse_reply(questions(DEPLOY), reply), "env") == expected


def test_number_out_of_range_is_refused_with_the_valid_range() -> None:
    outcome = parse_reply(questions(DEPLOY), "7")
    assert isinstance(outcome, Parsed)
    assert outcome.answers == {}
    assert "1 to 3" in outcome.problems["env"]


@pytest.mark.parametrize("reply", ["skip", "/skip", "lewati", " SKIP ", "Skip."])
def test_skip_words(reply: str) -> None:
    assert isinstance(parse_reply(questions(DEPLOY), reply), Skip)


@pytest.mark.parametrize("reply", ["1,3", "1 3", "1 and 3", "lint, build", "3, 1, 1", "Lint and Build"])
def test_design_table_multi_select(reply: str) -> None:
    assert answer_of(parse_reply(questions(CHECKS), reply), "checks") == ["Lint", "Build"]


def test_multi_select_label_with_a_comma_matches_whole() -> None:
    spec = {**CHECKS, "options": [{"label": "Lint, strict"}, {"label": "Test"}]}
    assert answer_of(parse_reply(questions(spec), "lint, strict"), "checks") == ["Lint, strict"]
    assert answer_of(parse_reply(questions(spec), "Lint, strict, test"), "checks") == [
        "Lint, strict", "Test"]


def test_multi_select_out_of_range_number_is_refused() -> None:
    outcome = parse_reply(questions(CHECKS), "1, 9")
    assert isinstance(outcome, Parsed) and "1 to 4" in outcome.problems["checks"]


def test_multi_select_free_text() -> None:
    assert answer_of(parse_reply(questions(CHECKS), "only the fast ones"), "checks") == [
        "only the fast ones"]


def test_numeric_labels_match_as_labels_first() -> None:
    spec = {**DEPLOY, "options": [{"label": "10"}, {"label": "20"}, {"label": "30"}]}
    assert answer_of(parse_reply(questions(spec), "20"), "env") == ["20"]
    assert answer_of(parse_reply(questions(spec), "2"), "env") == ["20"]


TIME = {"id": "when", "header": "When", "question": "When?",
        "options": [{"label": "Now"}, {"label": "Tonight"}]}


@pytest.mark.parametrize("text", [
    "1: 2\n2: 1,3", "env: production\nchecks: lint, build", "Deploy: 2\nChecks: 1 3",
    "2\n1,3", "Production\nlint and build",
])
def test_several_questions_keyed_or_in_order(text: str) -> None:
    outcome = parse_reply(questions(DEPLOY, CHECKS), text)
    assert answer_of(outcome, "env") == ["Production"]
    assert answer_of(outcome, "checks") == ["Lint", "Build"]


@pytest.mark.parametrize("value", ["14:30", "https://example.com/x", "C:\\Users\\me", "2:30"])
def test_times_urls_and_paths_are_answers_not_keys(value: str) -> None:
    outcome = parse_reply(questions(TIME, DEPLOY), f"{value}\n2")
    assert answer_of(outcome, "when") == [value]
    assert answer_of(outcome, "env") == ["Production"]


def test_partial_reply_is_kept_and_only_the_rest_is_needed() -> None:
    qs = questions(DEPLOY, CHECKS)
    first = parse_reply(qs, "1: 2")
    assert isinstance(first, Parsed) and first.answers == {"env": ["Production"]}
    second = parse_reply(qs, "lint", already=first.answers)
    assert answer_of(second, "checks") == ["Lint"]


def test_too_many_loose_lines_are_not_guessed() -> None:
    outcome = parse_reply(questions(DEPLOY, CHECKS), "a\nb\nc")
    assert isinstance(outcome, Parsed) and outcome.unplaced and not outcome.answers


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=300))
def test_no_text_makes_the_parser_raise(text: str) -> None:
    for qs in (questions(DEPLOY), questions(CHECKS), questions(DEPLOY, CHECKS, TIME)):
        outcome = parse_reply(qs, text)
        assert isinstance(outcome, (Parsed, Skip))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["1", "2", "3", "4", "lint", "Build", ",", " ", " and ", ";",
                                 "9", "x", ":", "\n", "deploy"]), max_size=12))
def test_no_token_soup_makes_the_parser_raise(parts: list[str]) -> None:
    outcome = parse_reply(questions(CHECKS, DEPLOY), "".join(parts))
    assert isinstance(outcome, (Parsed, Skip))
