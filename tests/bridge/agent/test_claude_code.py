"""Claude Code's documented payloads (named fixtures) become approval requests, and approval
results become exactly the answers its hook and its permission-prompt tool expect."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bridge.agent.claude_code import (
    BadHookInput,
    PermissionPromptInput,
    action_for,
    approval_body,
    hook_output,
    permission_output,
    read_hook_input,
    session_for,
)

PAYLOADS = Path(__file__).resolve().parents[2] / "fakes" / "payloads" / "claude_code"
APPROVED = {"status": "approved", "arguments": {"command": "ls"}, "edited": False,
            "scope": "once", "decidedBy": [{"surface": "webhook:sms:+100", "user": "ana"}]}


def payload(name: str) -> str:
    return (PAYLOADS / name).read_text(encoding="utf-8")


def test_the_documented_pre_tool_use_event_becomes_an_approval_of_the_exact_tool_input() -> None:
    event = read_hook_input(payload("pre_tool_use_bash.json"))
    assert event.tool_name == "Bash" and event.tool_use_id == "toolu_01ABC123DEF456"
    body = approval_body(event.tool_name, event.tool_input, 300, "high")
    assert body == {"action": "Bash: ./deploy.sh --build 1432 --env prod", "tool": "Bash",
                    "arguments": json.loads(payload("pre_tool_use_bash.json"))["tool_input"],
                    "timeoutSeconds": 300, "risk": "high"}
    write = read_hook_input(payload("pre_tool_use_write.json"))
    assert action_for(write.tool_name, write.tool_input) == "Write: /srv/shop/config/prod.env"


@pytest.mark.parametrize(("name", "says"), [
    ("pre_tool_use_truncated.txt", "stdin is not JSON"),
    ("post_tool_use_write.json", "hook_event_name"),
])
def test_anything_but_a_pre_tool_use_event_is_one_clear_line(name: str, says: str) -> None:
    with pytest.raises(BadHookInput) as caught:
        read_hook_input(payload(name))
    assert says in str(caught.value) and "\n" not in str(caught.value)
    assert "PreToolUse hook" in str(caught.value)


@pytest.mark.parametrize("raw", ["", "[]", "null", '{"hook_event_name": "PreToolUse"}',
                                 '{"hook_event_name": "PreToolUse", "tool_name": "Bash", '
                                 '"tool_input": "ls"}'])
def test_malformed_input_never_passes(raw: str) -> None:
    with pytest.raises(BadHookInput):
        read_hook_input(raw)


def test_an_action_line_is_one_line_and_at_most_200_characters() -> None:
    assert action_for("Bash", {"command": "echo a\n  echo b"}) == "Bash: echo a echo b"
    long = action_for("Bash", {"command": "x" * 500})
    assert len(long) == 200 and long.endswith("…")
    assert action_for("mcp__github__create_issue", {"title": 3}) == "mcp__github__create_issue"


def test_a_claude_session_is_an_askbridge_session_key() -> None:
    assert session_for("8c35adc1-5b7e") == "claude:8c35adc1-5b7e"
    assert session_for("a b/c") == "claude:a-b-c"
    assert session_for("") == "claude:main"
    assert len(session_for("x" * 300)) == 128


def hook(result: dict[str, Any]) -> dict[str, Any]:
    return dict(hook_output(result)["hookSpecificOutput"])


def test_hook_output_allow_deny_ask() -> None:
    assert hook_output(APPROVED) == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "allow",
        "permissionDecisionReason": "Approved by ana in askbridge."}}
    rejected = hook({"status": "rejected", "reason": "not on a Friday",
                     "decidedBy": [{"surface": "telegram:1", "user": "ana"}]})
    assert rejected == {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                        "permissionDecisionReason": "Rejected by ana in askbridge: not on a "
                                                    "Friday"}
    missed = hook({"status": "no_answer", "reason": "expired"})
    assert missed["permissionDecision"] == "ask" and "expired" in missed[
        "permissionDecisionReason"]


def test_an_edit_reaches_claude_code_as_its_updated_input() -> None:
    edited = hook({**APPROVED, "edited": True, "arguments": {"command": "ls -la"}})
    assert edited["permissionDecision"] == "allow"
    assert edited["updatedInput"] == {"command": "ls -la"}
    assert "updatedInput" not in hook(APPROVED)


def test_permission_prompt_input_and_output() -> None:
    asked = PermissionPromptInput.model_validate_json(payload("permission_prompt_bash.json"))
    assert asked.tool_name == "Bash" and asked.tool_use_id == "toolu_01ABC123DEF456"
    assert permission_output(APPROVED, asked.input) == {"behavior": "allow",
                                                        "updatedInput": {"command": "ls"}}
    denied = permission_output({"status": "rejected", "reason": "no", "decidedBy": []},
                               asked.input)
    assert denied["behavior"] == "deny" and "no" in denied["message"]
    assert set(denied) == {"behavior", "message"}
    missed = permission_output({"status": "no_answer", "reason": "expired"}, asked.input)
    assert missed["behavior"] == "deny" and "expired" in missed["message"]
