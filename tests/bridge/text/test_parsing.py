"""The reply parser: the table of replies first, then several questions, then properties."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.model.contract import AskRequest, Question
from bridge.model.validation import parse_ask_request
from bridge.text.parsing import Parsed, Skip, parse_reply
from tests.samples import CHECKS, DEPLOY, TARGET, with_options


def questions(*specs: dict[str, Any]) -> list[Question]:
    return list(AskRequest.model_validate({"questions": list(specs)}).questions)


CHECKS_AND_DEPLOY = with_options(CHECKS, "Lint", "Test", "Build", "Deploy")
"""The multi-select sample with a label that is also the single-select sample's header."""


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
    assert answer_of(parse_reply(questions(TARGET), reply), "deploy_target") == expected


def test_number_out_of_range_is_refused_with_the_valid_range() -> None:
    outcome = parse_reply(questions(TARGET), "7")
    assert isinstance(outcome, Parsed)
    assert outcome.answers == {}
    assert "1 to 3" in outcome.problems["deploy_target"]


@pytest.mark.parametrize("reply", ["skip", "/skip", "lewati", " SKIP ", "Skip."])
def test_skip_words(reply: str) -> None:
    assert isinstance(parse_reply(questions(TARGET), reply), Skip)


@pytest.mark.parametrize("reply", ["1,3", "1 3", "1 and 3", "lint, build", "3, 1, 1", "Lint and Build"])
def test_design_table_multi_select(reply: str) -> None:
    assert answer_of(parse_reply(questions(CHECKS_AND_DEPLOY), reply), "checks") == ["Lint", "Build"]


def test_multi_select_label_with_a_comma_matches_whole() -> None:
    spec = {**CHECKS_AND_DEPLOY, "options": [{"label": "Lint, strict"}, {"label": "Test"}]}
    assert answer_of(parse_reply(questions(spec), "lint, strict"), "checks") == ["Lint, strict"]
    assert answer_of(parse_reply(questions(spec), "Lint, strict, test"), "checks") == [
        "Lint, strict", "Test"]


def test_multi_select_out_of_range_number_is_refused() -> None:
    outcome = parse_reply(questions(CHECKS_AND_DEPLOY), "1, 9")
    assert isinstance(outcome, Parsed) and "1 to 4" in outcome.problems["checks"]


def test_multi_select_free_text() -> None:
    assert answer_of(parse_reply(questions(CHECKS_AND_DEPLOY), "only the fast ones"), "checks") == [
        "only the fast ones"]


def test_numeric_labels_match_as_labels_first() -> None:
    spec = {**TARGET, "options": [{"label": "10"}, {"label": "20"}, {"label": "30"}]}
    assert answer_of(parse_reply(questions(spec), "20"), "deploy_target") == ["20"]
    assert answer_of(parse_reply(questions(spec), "2"), "deploy_target") == ["20"]


TIME = {"id": "when", "header": "When", "question": "When?",
        "options": [{"label": "Now"}, {"label": "Tonight"}]}


@pytest.mark.parametrize("text", [
    "1: 2\n2: 1,3", "deploy_target: production\nchecks: lint, build", "Deploy: 2\nChecks: 1 3",
    "2\n1,3", "Production\nlint and build",
])
def test_several_questions_keyed_or_in_order(text: str) -> None:
    outcome = parse_reply(questions(TARGET, CHECKS_AND_DEPLOY), text)
    assert answer_of(outcome, "deploy_target") == ["Production"]
    assert answer_of(outcome, "checks") == ["Lint", "Build"]


@pytest.mark.parametrize("value", ["14:30", "https://example.com/x", "C:\\Users\\me", "2:30"])
def test_times_urls_and_paths_are_answers_not_keys(value: str) -> None:
    outcome = parse_reply(questions(TIME, TARGET), f"{value}\n2")
    assert answer_of(outcome, "when") == [value]
    assert answer_of(outcome, "deploy_target") == ["Production"]


def test_partial_reply_is_kept_and_only_the_rest_is_needed() -> None:
    qs = questions(TARGET, CHECKS_AND_DEPLOY)
    first = parse_reply(qs, "1: 2")
    assert isinstance(first, Parsed) and first.answers == {"deploy_target": ["Production"]}
    second = parse_reply(qs, "lint", already=first.answers)
    assert answer_of(second, "checks") == ["Lint"]


def test_too_many_loose_lines_are_not_guessed() -> None:
    outcome = parse_reply(questions(TARGET, CHECKS_AND_DEPLOY), "a\nb\nc")
    assert isinstance(outcome, Parsed) and outcome.unplaced and not outcome.answers


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=300))
def test_no_text_makes_the_parser_raise(text: str) -> None:
    for qs in (questions(TARGET), questions(CHECKS_AND_DEPLOY), questions(TARGET, CHECKS_AND_DEPLOY, TIME)):
        outcome = parse_reply(qs, text)
        assert isinstance(outcome, (Parsed, Skip))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["1", "2", "3", "4", "lint", "Build", ",", " ", " and ", ";",
                                 "9", "x", ":", "\n", "deploy"]), max_size=12))
def test_no_token_soup_makes_the_parser_raise(parts: list[str]) -> None:
    outcome = parse_reply(questions(CHECKS_AND_DEPLOY, TARGET), "".join(parts))
    assert isinstance(outcome, (Parsed, Skip))


def deploy_questions() -> list:  # type: ignore[type-arg]
    return list(parse_ask_request(DEPLOY).questions)


@pytest.mark.parametrize("reply", ["1,2", "1, 3", "1 and 2", "staging, production",
                                   "Production and Canary", "2 3", "1,7"])
def test_several_picks_on_a_single_select_question_are_refused(reply: str) -> None:
    outcome = parse_reply(deploy_questions(), reply)
    assert isinstance(outcome, Parsed) and outcome.answers == {}
    assert "Choose one" in outcome.problems["deploy_target"]


@pytest.mark.parametrize(("reply", "expected"), [
    ("2", ["Production"]), ("1, 1", ["Staging (Recommended)"]),
    ("ship it on 2 servers", ["ship it on 2 servers"]), ("10 20", ["10 20"]),
])
def test_one_pick_or_free_text_is_still_an_answer(reply: str, expected: list[str]) -> None:
    outcome = parse_reply(deploy_questions(), reply)
    assert isinstance(outcome, Parsed) and outcome.answers == {"deploy_target": expected}


@pytest.mark.parametrize("reply", ["1 dan 3", "lint dan build", "Lint DAN Build", "1 and 3",
                                   "3 dan 1, 1"])
def test_conjunctions_of_every_locale(reply: str) -> None:
    outcome = parse_reply(questions(CHECKS), reply)
    assert isinstance(outcome, Parsed) and outcome.answers == {"checks": ["Lint", "Build"]}


@pytest.mark.parametrize("reply", ["skip", "/skip", "lewati", "/lewati", "Lewati!"])
def test_skip_words_of_every_locale(reply: str) -> None:
    assert isinstance(parse_reply(questions(TARGET), reply), Skip)


def test_a_label_holding_a_conjunction_still_matches_whole() -> None:
    spec = {**CHECKS, "options": [{"label": "Lint dan Build"}, {"label": "Test"}]}
    outcome = parse_reply(questions(spec), "lint dan build, 2")
    assert isinstance(outcome, Parsed)
    assert outcome.answers == {"checks": ["Lint dan Build", "Test"]}


def test_problems_are_written_in_the_reply_locale() -> None:
    outcome = parse_reply(questions(TARGET), "7", locale="id")
    assert isinstance(outcome, Parsed)
    assert "Tidak ada pilihan 7: balas dengan angka 1–3" in outcome.problems["deploy_target"]
