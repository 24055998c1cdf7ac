"""Claude Code's two ways in, as data: its PreToolUse hook and its permission-prompt tool each
become one approval request, and an approval result becomes the exact answer each one expects."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from bridge.model.labels import cut_graphemes
from bridge.text.i18n import tr

ACTION_MAX = 200
SESSION_PREFIX = "claude:"
_SESSION_UNSAFE = re.compile(r"[^A-Za-z0-9._:@-]")

Decision = Literal["allow", "deny", "ask"]


class _Platform(BaseModel):
    """Claude Code's payloads: unknown fields are its to add, and ignored here."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class PreToolUseInput(_Platform):
    """What Claude Code writes on a PreToolUse hook's stdin (the fields askbridge reads)."""

    session_id: str = ""
    transcript_path: str = ""
    cwd: str = ""
    permission_mode: str = ""
    hook_event_name: Literal["PreToolUse"]
    tool_name: str
    tool_input: dict[str, Any]
    tool_use_id: str = ""


class PermissionPromptInput(_Platform):
    """The arguments `claude -p --permission-prompt-tool` calls its MCP tool with."""

    tool_name: str
    input: dict[str, Any]
    tool_use_id: str | None = None


class BadHookInput(ValueError):
    """The hook's stdin is not a PreToolUse event; the message is one line for a person."""


def read_hook_input(raw: str) -> PreToolUseInput:
    """Parse the hook's stdin, or say in one line what is wrong with it."""
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise BadHookInput(tr("en", "stdin is not JSON ({error}); Claude Code writes the "
                              "PreToolUse event there: run this command as a PreToolUse hook.",
                              error=str(exc))) from None
    if not isinstance(data, dict):
        raise BadHookInput(tr("en", "stdin is JSON but not an object; Claude Code writes the "
                              "PreToolUse event there as one object: run this command as a "
                              "PreToolUse hook."))
    try:
        return PreToolUseInput.model_validate(data)
    except ValidationError as exc:
        where = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'input'}: {e['msg']}"
                          for e in exc.errors())
        raise BadHookInput(tr("en", "stdin is not a PreToolUse event ({problems}); run this "
                              "command as a PreToolUse hook.", problems=where)) from None


def action_for(tool_name: str, tool_input: dict[str, Any]) -> str:
    """What the person is asked to approve, in one line: the tool, then what it will touch
    (the full arguments are shown beside it)."""
    detail = next((str(tool_input[k]) for k in ("command", "file_path", "notebook_path", "url",
                                                  "path", "pattern", "query", "description")
                   if isinstance(tool_input.get(k), str) and tool_input[k].strip()), "")
    line = " ".join(detail.split())  # a multi-line command reads as one line here
    text = f"{tool_name}: {line}" if line else tool_name
    if len(text) <= ACTION_MAX:
        return text
    return cut_graphemes(text, ACTION_MAX - 1) + "…"


def session_for(claude_session_id: str) -> str:
    """The askbridge session of one Claude Code session, so two sessions never wait on each other
    (one pending approval per session)."""
    key = SESSION_PREFIX + _SESSION_UNSAFE.sub("-", claude_session_id.strip() or "main")
    return key[:128]


def approval_body(tool_name: str, tool_input: dict[str, Any], timeout_seconds: int | None = None,
                  risk: str | None = None) -> dict[str, Any]:
    """The approval request for one tool use."""
    body: dict[str, Any] = {"action": action_for(tool_name, tool_input),
                            "tool": cut_graphemes(tool_name, 64), "arguments": tool_input}
    if timeout_seconds is not None:
        body["timeoutSeconds"] = timeout_seconds
    if risk is not None:
        body["risk"] = risk
    return body


def decided_by(result: dict[str, Any]) -> str:
    people = [str(d.get("user") or d.get("surface") or "") for d in result.get("decidedBy") or []]
    return ", ".join(p for p in people if p) or "askbridge"


def hook_output(result: dict[str, Any]) -> dict[str, Any]:
    """The PreToolUse hook's answer for an approval result (its JSON form): approved → allow,
    rejected → deny, no answer → ask, so Claude Code's own prompt takes over. An edit travels as
    `updatedInput`, Claude Code's field for it, so what runs is what the person approved."""
    status = result.get("status")
    if status == "approved":
        scope = " (a rule)" if result.get("scope") == "rule" else ""
        out = decision("allow", f"Approved by {decided_by(result)}{scope} in askbridge.")
        if result.get("edited"):
            out["hookSpecificOutput"]["updatedInput"] = result.get("arguments") or {}
        return out
    if status == "rejected":
        reason = str(result.get("reason") or "").strip()
        return decision("deny", f"Rejected by {decided_by(result)} in askbridge"
                        + (f": {reason}" if reason else "."))
    return decision("ask", f"No decision in askbridge ({result.get('reason', 'no_answer')}); "
                           "decide here.")


def decision(permission: Decision, reason: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                   "permissionDecision": permission,
                                   "permissionDecisionReason": reason}}


def permission_output(result: dict[str, Any], original: dict[str, Any]) -> dict[str, Any]:
    """The permission-prompt tool's answer: allow with the input to run (the person's edit, or
    the original), or deny with a message the model reads."""
    status = result.get("status")
    if status == "approved":
        arguments = result.get("arguments")
        return {"behavior": "allow",
                "updatedInput": arguments if isinstance(arguments, dict) else original}
    if status == "rejected":
        reason = str(result.get("reason") or "").strip()
        return {"behavior": "deny", "message": f"Rejected by {decided_by(result)}"
                + (f": {reason}" if reason else ".") + " Do not retry it; take another way "
                "or ask the user."}
    return {"behavior": "deny", "message": f"No one approved this in time "
            f"({result.get('reason', 'no_answer')}); it did not run. Continue with your best "
            "judgment without it."}
