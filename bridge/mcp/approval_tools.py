"""The approval MCP tools: `request_approval` (the §14 request in, its result as structured
content) and `approve_tool_use` (Claude Code's permission-prompt tool), for main agents only."""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable
from typing import Any, Protocol

import mcp.types as mt

from bridge.agent.claude_code import PermissionPromptInput, approval_body, permission_output
from bridge.http.approval_schemas import APPROVAL_SCHEMAS, approval_request_schema
from bridge.mcp.tool import AskFailure, Progress, with_progress
from bridge.model.errors import error_body
from bridge.model.validation import InvalidRequest, Problem
from bridge.text.i18n import N_

REQUEST_APPROVAL = "request_approval"
APPROVE_TOOL_USE = "approve_tool_use"
NAMES: tuple[str, ...] = (REQUEST_APPROVAL, APPROVE_TOOL_USE)

APPROVAL_GUIDANCE = (
    "Ask a person to approve an action before you take it, and wait for the decision. Give "
    "`action` (what will happen, one line), and when it is a tool call its `tool` and exact "
    "`arguments`: the person approves those arguments, and may edit them. The result is "
    "{status: 'approved', arguments, edited, scope, decidedBy}: run exactly `arguments` (the "
    "person's edit, if any); {status: 'rejected', reason}: do not do it; or {status: "
    "'no_answer', reason}: nobody decided, so it is not approved: do not do it, and continue "
    "with your best judgment without it."
)
PERMISSION_GUIDANCE = (
    "Claude Code's permission prompt (claude -p --permission-prompt-tool "
    "mcp__askbridge__approve_tool_use): asks a person in askbridge whether a tool call may run. "
    "Returns, as text, {\"behavior\": \"allow\", \"updatedInput\": {...}} or {\"behavior\": "
    "\"deny\", \"message\": \"...\"}."
)

WAITING_FOR_APPROVAL = N_(
    "Waiting for the approval: {waited} s so far, about {left} s left.")


class Approver(Protocol):
    """How an approval tool reaches the approvals core: in-process (/mcp) or over HTTP."""

    async def approve(self, body: dict[str, Any], progress: Progress,
                      modern: bool = False) -> dict[str, Any]:
        """Request the approval, wait for the decision; the result as JSON. Raises
        `InvalidRequest` for a bad request and `AskFailure` when it cannot be asked. `modern`:
        the host speaks 2026-07-28, where a broken stream is not a stop (it calls again)."""
        ...


def permission_input_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "tool_name": {"type": "string", "description": "The tool Claude Code wants to use."},
            "input": {"type": "object", "description": "The input it wants to call it with."},
            "tool_use_id": {"type": "string", "description": "The tool use's id."},
        },
        "required": ["tool_name", "input"],
    }


def tools(request_schema: dict[str, Any], result_schema: dict[str, Any]) -> list[mt.Tool]:
    return [
        mt.Tool(name=REQUEST_APPROVAL, title="Ask a person to approve an action",
                description=APPROVAL_GUIDANCE, inputSchema=request_schema,
                outputSchema=result_schema),
        mt.Tool(name=APPROVE_TOOL_USE, title="Approve a Claude Code tool use",
                description=PERMISSION_GUIDANCE, inputSchema=permission_input_schema()),
    ]


def result_lines(result: dict[str, Any]) -> str:
    """The readable text an agent sees next to the structured result."""
    status = result.get("status")
    who = ", ".join(str(d.get("user")) for d in result.get("decidedBy") or []) or "a rule"
    if status == "approved":
        edited = " The person edited the arguments." if result.get("edited") else ""
        return (f"Approved by {who} ({result.get('scope', 'once')}).{edited} Run it with "
                f"exactly these arguments: {json.dumps(result.get('arguments') or {})}")
    if status == "rejected":
        return (f"Rejected by {who}: {result.get('reason') or 'no reason given'}. Do not do "
                "it; take another way or ask the user.")
    return (f"No decision ({result.get('reason')}): it is not approved, so do not do it. "
            "Continue with your best judgment without it.")


def _invalid(problems: list[Problem], tool: str) -> mt.CallToolResult:
    text = f"Invalid {tool} call; fix these and call again:\n" + "\n".join(
        f"- {p.loc}: {p.msg}" for p in problems)
    return mt.CallToolResult(
        content=[mt.TextContent(type="text", text=text)],
        structuredContent=error_body("invalid_request", [p.model_dump() for p in problems]),
        isError=True)


def _text(text: str, error: bool = False) -> mt.CallToolResult:
    return mt.CallToolResult(content=[mt.TextContent(type="text", text=text)], isError=error)


async def call(name: str, arguments: dict[str, Any], approver: Approver,
               progress: Progress, modern: bool = False) -> mt.CallToolResult:
    """Run one approval tool call to its MCP result (always a whole `CallToolResult`, which
    every SDK version's server takes as it is)."""
    if name == REQUEST_APPROVAL:
        try:
            result = await approver.approve(arguments, progress, modern)
        except InvalidRequest as exc:
            return _invalid(exc.problems, REQUEST_APPROVAL)
        except AskFailure as exc:
            return _text(str(exc), error=True)
        return mt.CallToolResult(content=[mt.TextContent(type="text", text=result_lines(result))],
                                 structuredContent=result)
    try:
        asked = PermissionPromptInput.model_validate(arguments)
    except ValueError:
        return _invalid([Problem(loc="input", msg="Give tool_name (a string) and input (the "
                                 "tool's input object), as Claude Code's permission prompt "
                                 "does.")], APPROVE_TOOL_USE)
    try:
        result = await approver.approve(approval_body(asked.tool_name, asked.input), progress,
                                        modern)
    except InvalidRequest as exc:  # e.g. arguments over the size limit: no one can approve it
        message = "; ".join(f"{p.loc}: {p.msg}" for p in exc.problems)
        return _text(json.dumps({"behavior": "deny", "message": "askbridge could not ask for "
                                 f"approval ({message}); it did not run."}))
    except AskFailure as exc:
        return _text(json.dumps({"behavior": "deny", "message": f"{exc} It did not run."}))
    return _text(json.dumps(permission_output(result, asked.input)))


async def waiting(work: Awaitable[dict[str, Any]], progress: Progress, interval: float,
                  total: float) -> dict[str, Any]:
    """Await `work`, reporting progress every `interval` seconds until it completes."""
    return await with_progress(work, progress, interval, total, waiting_for=WAITING_FOR_APPROVAL)


class ApprovalTools:
    """The two approval tools as a `Toolset` for `build_server`."""

    names: tuple[str, ...] = NAMES

    def __init__(self, approver: Approver) -> None:
        self.approver = approver

    def tools(self) -> list[mt.Tool]:
        return list(_listed())

    async def call(self, name: str, arguments: dict[str, Any], progress: Progress,
                   faults: list[Problem], modern: bool = False) -> mt.CallToolResult:
        return await call(name, arguments, _Refused(faults) if faults else self.approver,
                          progress, modern)


class _Refused:
    """The approver of a call whose text could not be kept (a lone surrogate, mended on its way
    in): refused by name as the 422 says, never asked with U+FFFD in its place."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems

    async def approve(self, body: dict[str, Any], progress: Progress,
                      modern: bool = False) -> dict[str, Any]:
        raise InvalidRequest(self.problems)


@functools.cache
def _listed() -> tuple[mt.Tool, ...]:
    """The two tools, made once per process (their schemas take most of a millisecond to
    generate, and a stateless host lists the tools before each call)."""
    return tuple(tools(request_schema(), result_schema()))


def request_schema() -> dict[str, Any]:
    """The request's JSON Schema, as the OpenAPI document states it (camelCase, unknown keys
    rejected, the limits a host can check before calling)."""
    return approval_request_schema()


def result_schema() -> dict[str, Any]:
    """The result the call's structured content holds: approved, rejected, or no answer."""
    return {"type": "object", "oneOf": [APPROVAL_SCHEMAS["Approved"], APPROVAL_SCHEMAS[
        "Rejected"], APPROVAL_SCHEMAS["ApprovalNoAnswer"]]}
