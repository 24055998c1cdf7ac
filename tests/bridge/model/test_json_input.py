"""The one JSON reader: depth counted outside strings, over-long integers clamped, never a crash."""

from __future__ import annotations

import json

import pytest

from bridge.model.json_input import HUGE, MAX_DEPTH, MAX_DIGITS, BadJson, depth, parse_json


def test_depth_ignores_brackets_inside_strings_and_escapes() -> None:
    assert depth(b'{"a": [1, {"b": "[[[[{{{{"}]}') == 3
    assert depth(json.dumps({"a": ['\\"[[', "\\", {"b": ['"]]]\\']}]}).encode()) == 4
    assert depth(b"1") == depth(b'"[["') == 0
    assert depth(b"[" * 100_000 + b"]" * 100_000) == 100_000


def test_too_deep_is_refused_before_parsing_and_the_limit_itself_is_read() -> None:
    at_limit = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert parse_json(at_limit) == parse_json(at_limit.decode())
    with pytest.raises(BadJson) as refused:
        parse_json(b'{"questions": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    assert refused.value.problems[0].loc == "body"
    assert f"deeper than {MAX_DEPTH} levels" in refused.value.problems[0].msg


def test_over_long_integers_keep_their_sign_and_order() -> None:
    body = parse_json(b'{"up": 1' + b"0" * 5000 + b', "down": -' + b"9" * 5000 + b"}")
    assert body == {"up": HUGE, "down": -HUGE}
    assert len(str(HUGE)) == MAX_DIGITS  # still printable: str() has the same limit
    exact = "-" + "7" * MAX_DIGITS
    assert parse_json(exact.encode()) == int(exact)


@pytest.mark.parametrize("raw", [b"{nope", b"\xff\xfe", b'{"a": 1', b"[1,]"])
def test_not_json_is_bad_json_a_value_error_too(raw: bytes) -> None:
    with pytest.raises(BadJson):
        parse_json(raw)
    with pytest.raises(ValueError):  # callers that catch ValueError (Slack's shape check) see it
        parse_json(raw)
