"""The approval contract: every input rule reported at once, results shaped exactly, and the
canonical (RFC 8785) payload hash."""

from __future__ import annotations

from typing import Any

import pytest

from bridge.model.approval import ApprovalResult, DecidedBy, parse_approval_request
from bridge.model.canonical import canonical, payload_hash
from bridge.model.validation import InvalidRequest


def problems(raw: Any) -> dict[str, str]:
    with pytest.raises(InvalidRequest) as caught:
        parse_approval_request(raw)
    return {p.loc: p.msg for p in caught.value.problems}


def test_defaults_and_trimming() -> None:
    request = parse_approval_request({"action": "  Deploy web  ", "arguments": {"a": 1}})
    assert request.action == "Deploy web" and request.risk == "medium"
    assert request.editable and request.timeout_seconds == 900
    assert not parse_approval_request({"action": "Restart"}).editable
    assert not parse_approval_request({"action": "x", "arguments": {}, "allowEdit": False}).editable
    assert parse_approval_request({"action": "x", "timeoutSeconds": 5}).timeout_seconds == 30


def test_every_problem_at_once_by_place() -> None:
    found = problems({"action": " ", "tool": "t" * 65, "risk": "huge", "allowEdit": "yes",
                      "timeoutSeconds": 12.5, "arguments": [1], "argumentsSchema": {"type": 3},
                      "extra": 1})
    assert set(found) == {"action", "tool", "risk", "allowEdit", "timeoutSeconds", "arguments",
                          "argumentsSchema", "extra"}
    assert "Unknown field `extra`" in found["extra"]
    assert "allow_edit" in problems({"action": "x", "allow_edit": True})  # camelCase only


def test_arguments_limits_and_schema() -> None:
    big = {"blob": "x" * (16 * 1024)}
    assert "16 KiB" in problems({"action": "x", "arguments": big})["arguments"]
    assert "exactly" in problems({"action": "x", "arguments": {"n": 2**60}})["arguments"]
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert "argumentsSchema" in problems({"action": "x", "arguments": {"n": "2"},
                                          "argumentsSchema": schema})["arguments.n"]
    assert parse_approval_request({"action": "x", "arguments": {"n": 2},
                                   "argumentsSchema": schema}).arguments == {"n": 2}


def test_nul_and_lone_surrogates_are_refused_by_name() -> None:
    found = problems({"action": "ok\x00", "arguments": {"k": "\ud800"}})
    assert "NUL" in found["action"] and "surrogate" in found["arguments.k"]


def test_results_are_shaped_exactly() -> None:
    by = [DecidedBy(surface="telegram:1", user="7")]
    assert ApprovalResult.approved({"a": 1}, False, "once", by).to_json() == {
        "status": "approved", "arguments": {"a": 1}, "edited": False, "scope": "once",
        "decidedBy": [{"surface": "telegram:1", "user": "7"}]}
    assert ApprovalResult.rejected("no", by).to_json() == {
        "status": "rejected", "reason": "no", "decidedBy": [{"surface": "telegram:1", "user": "7"}]}
    assert ApprovalResult.no_answer("expired").to_json() == {"status": "no_answer",
                                                             "reason": "expired"}


def test_canonical_json_is_rfc_8785() -> None:
    assert canonical({"b": [1.0, "é"], "a": 1e21}) == '{"a":1e+21,"b":[1,"é"]}'.encode()
    assert payload_hash({"x": 1, "y": 2}) == payload_hash({"y": 2, "x": 1})
    assert payload_hash({"x": 1}) != payload_hash({"x": 2})


def test_a_lone_surrogate_in_a_key_is_refused_by_name_not_raised() -> None:
    """rfc8785 sorts keys by their UTF-16 form, which raises UnicodeEncodeError (not its own
    error) on a lone surrogate: the request is refused like any other fault, never a crash."""
    found = problems({"action": "x", "arguments": {"\ud800": 1}})
    assert "surrogate" in found["arguments.\\ud800"]
    assert problems({"action": "x", "arguments": {"k": {"\udfff": 1}}})
