"""The `ask_user` MCP tool, shared by the stdio server and the server's /mcp endpoint."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import mcp.types as mt
from mcp.server.lowlevel import Server

from bridge.http.openapi import RESPONSE_SCHEMAS
from bridge.model.contract import AskResult, tool_input_schema
from bridge.model.errors import error_body
from bridge.model.validation import InvalidRequest, Problem
from bridge.runtime.version import package_version
from bridge.text.i18n import tr

TOOL_NAME = "ask_user"
GUIDANCE = (
    "Ask the user one to three structured questions and wait for the answer. Use it only when "
    "you are blocked on a decision that is genuinely the user's to make, never for routine "
    "confirmation: do not ask whether to proceed or to confirm a plan. Prefer one question, "
    "never more than three. Give 2-4 options per question; put the option you recommend first "
    "and end its label with ' (Recommended)'. Never add an 'Other' option: the user can always "
    "answer in their own words. Set multiSelect when several options may be chosen. The result "
    "is {status: 'answered', answers: {answers: {<id>: {answers: [...]}}}} or {status: "
    "'no_answer', reason}; after no_answer (expired, skipped, cancelled, undelivered) continue "
    "with your best judgment."
)

Progress = Callable[[float, float, str], Awaitable[None]]
"""`progress(waited, total, message)`: seconds waited so far of the `total` the ask may last."""


class Toolset(Protocol):
    """More tools beside `ask_user` (the approval tools), listed and called for main agents."""

    names: tuple[str, ...]

    def tools(self) -> list[mt.Tool]: ...

    async def call(self, name: str, arguments: dict[str, Any], progress: Progress) -> Any: ...


class Asker(Protocol):
    """How a tool call reaches the broker: in-process (/mcp) or over HTTP (`askbridge mcp`)."""

    async def may_ask(self) -> bool: ...

    async def ask(self, arguments: dict[str, Any], progress: Progress) -> AskResult: ...


def output_schema() -> dict[str, Any]:
    """The `AskResult` the call's structured content holds: answered, or no_answer and why."""
    return {"type": "object", "oneOf": [RESPONSE_SCHEMAS["Answered"],
                                        RESPONSE_SCHEMAS["NoAnswer"]]}


def tool() -> mt.Tool:
    return mt.Tool(
        name=TOOL_NAME,
        title="Ask the user",
        description=GUIDANCE,
        inputSchema=tool_input_schema(),
        outputSchema=output_schema(),
    )


def result_lines(result: AskResult) -> str:
    """The readable text an agent sees next to the structured result."""
    if result.status == "no_answer":
        return (f"No answer ({result.reason}). Continue with your best judgment.")
    lines = ["The user answered:"]
    lines += [f"- {qid}: {', '.join(values)}" for qid, values in result.answer_map().items()]
    return "\n".join(lines)


def error_result(problems: list[Problem]) -> mt.CallToolResult:
    text = "Invalid ask_user call; fix these and call again:\n" + "\n".join(
        f"- {p.loc}: {p.msg}" for p in problems
    )
    return mt.CallToolResult(
        content=[mt.TextContent(type="text", text=text)],
        structuredContent=error_body("invalid_request", [p.model_dump() for p in problems]),
        isError=True,
    )


def failure_result(message: str) -> mt.CallToolResult:
    return mt.CallToolResult(content=[mt.TextContent(type="text", text=message)], isError=True)


async def with_progress(
    work: Awaitable[AskResult], progress: Progress, interval: float, total: float
) -> AskResult:
    """Await `work`, reporting progress every `interval` seconds until it completes."""
    task = asyncio.ensure_future(work)
    started = time.monotonic()
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=interval)
            if done:
                return task.result()
            waited = time.monotonic() - started
            await progress(waited, total, tr(
                "en", "Waiting for the user's answer: {waited} s so far, about {left} s left.",
                waited=int(waited), left=max(0, int(total - waited))))
    finally:
        if not task.done():
            task.cancel()


def build_server(asker_for: Callable[[], Asker], name: str = "askbridge",
                 more: Callable[[], Toolset] | None = None) -> Server[Any, Any]:
    """A low-level MCP server with `ask_user` (and the `more` tools), listed only for main
    agents."""
    server: Server[Any, Any] = Server(name, version=package_version(), instructions=GUIDANCE)

    # The SDK's decorators are untyped; the handlers below are fully typed.
    @server.list_tools()  # type: ignore[no-untyped-call, untyped-decorator]
    async def list_tools() -> list[mt.Tool]:
        extra = more().tools() if more else []
        return [tool(), *extra] if await asker_for().may_ask() else []

    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
        extra = more() if more else None
        if name != TOOL_NAME and not (extra and name in extra.names):
            return failure_result(f"Unknown tool {name!r}; the only tool is {TOOL_NAME}.")
        asker = asker_for()
        if not await asker.may_ask():
            return failure_result(
                f"{name} is only for main sessions; continue with your best judgment.")
        ctx = server.request_context
        token = ctx.meta.progressToken if ctx.meta else None

        async def progress(done: float, total: float, message: str) -> None:
            if token is not None:
                await ctx.session.send_progress_notification(token, done, total=total,
                                                             message=message)

        if extra and name in extra.names:
            return await extra.call(name, arguments, progress)
        try:
            result = await asker.ask(arguments, progress)
        except InvalidRequest as exc:
            return error_result(exc.problems)
        except AskFailure as exc:
            return failure_result(str(exc))
        return [mt.TextContent(type="text", text=result_lines(result))], result.to_json()

    return server


class AskFailure(Exception):
    """The ask could not be made (409 pending, 403 subagent, server down); text for the model."""
