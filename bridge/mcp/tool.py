"""The `ask_user` MCP tool, shared by the stdio server and the server's /mcp endpoint, for hosts
of both revisions the official SDK speaks: 2025-11-25 (`initialize`, sessions) and 2026-07-28
(stateless: `server/discover`, capabilities in each request's `_meta`)."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

import mcp.types as mt
from mcp.server import Server, ServerRequestContext
from mcp.server.apps import client_supports_apps
from mcp.shared.exceptions import MCPError
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from bridge.http.openapi import RESPONSE_SCHEMAS
from bridge.mcp import apps
from bridge.mcp.host_form import ELICIT_KEY
from bridge.mcp.odd_text import LINE_FAULTS, TEXT_FAULTS, argument_problems
from bridge.mcp.url_mode import URL_KEY, ElicitUrl, url_capable
from bridge.model.contract import AskResult, tool_input_schema
from bridge.model.errors import error_body
from bridge.model.validation import InvalidRequest, Problem
from bridge.runtime.version import package_version
from bridge.text.i18n import N_, tr

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

T = TypeVar("T")
WAITING_FOR_ANSWER = N_("Waiting for the user's answer: {waited} s so far, about {left} s left.")
Progress = Callable[[float, float, str], Awaitable[None]]
"""`progress(waited, total, message)`: seconds waited so far of the `total` the ask may last."""
Elicit = Callable[[str, dict[str, Any]], Awaitable[mt.ElicitResult]]


@dataclass(frozen=True)
class HostCall:
    """What the calling host brings to one `tools/call`: its revision, whether it can show a
    form, and (2026-07-28) the answers and state of a retry."""

    modern: bool = False
    form: bool = False
    """The host declared form elicitation."""
    responses: dict[str, Any] | None = None
    state: str | None = None
    """The retry's `requestState`, as this server wrote it (verified, unsealed)."""
    elicit: Elicit | None = None
    """2025-11-25: send the host an `elicitation/create` tied to this call."""
    url: bool = False
    """The host declared URL-mode elicitation (it can open a link)."""
    elicit_url: ElicitUrl | None = None
    """2025-11-25: send the host a URL-mode `elicitation/create` tied to this call."""
    elicit_complete: Callable[[str], Awaitable[None]] | None = None
    """2025-11-25: tell the host a URL-mode elicitation is over (notifications/elicitation/complete)."""
    request: Any = None
    """The transport's request (over HTTP, Starlette's: its scope tells when the stream closed)."""


@dataclass(frozen=True)
class FormRound:
    """2026-07-28: answer `input_required` with this form; the retry carries the person's input."""

    message: str
    schema: dict[str, Any]
    state: str
    url: str | None = None
    """A URL round: the host opens this link (the answer page) instead of showing a form."""


class Toolset(Protocol):
    """More tools beside `ask_user` (the approval tools), listed and called for main agents."""

    names: tuple[str, ...]

    def tools(self) -> list[mt.Tool]: ...

    async def call(self, name: str, arguments: dict[str, Any], progress: Progress,
                   faults: list[Problem], modern: bool) -> Any:
        """Run tool `name`; `faults` name text in `arguments` the SDK could not have parsed;
        `modern`: a 2026-07-28 call (a broken stream is not a stop)."""


class Asker(Protocol):
    """How a tool call reaches the broker: in-process (/mcp) or over HTTP (`askbridge mcp`)."""

    async def may_ask(self) -> bool: ...

    async def ask(self, arguments: dict[str, Any], progress: Progress,
                  host: HostCall) -> AskResult | FormRound: ...


@runtime_checkable
class CardAsker(Asker, Protocol):
    """An asker whose host may show the question card (MCP Apps) and answer through it."""

    async def answer_card(self, arguments: dict[str, Any]) -> mt.CallToolResult: ...


def output_schema() -> dict[str, Any]:
    """The `AskResult` the call's structured content holds: answered, or no_answer and why."""
    return {"type": "object", "oneOf": [RESPONSE_SCHEMAS["Answered"],
                                        RESPONSE_SCHEMAS["NoAnswer"]]}


@functools.cache
def tool(card: bool = False) -> mt.Tool:
    """`ask_user`; with `card`, it names the question card hosts with MCP Apps show. Made once
    per process: its schemas take about a millisecond to generate, and a stateless host lists
    the tools before each call."""
    return mt.Tool(name=TOOL_NAME, title="Ask the user", description=GUIDANCE,
                   input_schema=tool_input_schema(), output_schema=output_schema(),
                   _meta=apps.ask_meta() if card else None)


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
        structured_content=error_body("invalid_request", [p.model_dump() for p in problems]),
        is_error=True,
    )


def failure_result(message: str) -> mt.CallToolResult:
    return mt.CallToolResult(content=[mt.TextContent(type="text", text=message)], is_error=True)


async def with_progress(work: Awaitable[T], progress: Progress, interval: float,
                        total: float, waited_before: float = 0.0,
                        waiting_for: str = WAITING_FOR_ANSWER) -> T:
    """Await `work`, reporting progress every `interval` seconds until it completes: the seconds
    waited (counting `waited_before`, the question's age when this call began) and left, in the
    `waiting_for` message."""
    task = asyncio.ensure_future(work)
    started = time.monotonic() - waited_before
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=interval)
            if done:
                return task.result()
            waited = time.monotonic() - started
            await progress(waited, total, tr("en", waiting_for, waited=int(waited),
                                             left=max(0, int(total - waited))))
    finally:
        if not task.done():
            task.cancel()


def form_capable(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether the host declared form elicitation (an empty `elicitation` means form)."""
    caps = ctx.session.client_capabilities
    found = caps.elicitation if caps is not None else None
    return found is not None and (found.form is not None or found.url is None)


def host_call(ctx: ServerRequestContext[Any, Any], params: mt.CallToolRequestParams) -> HostCall:
    modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
    elicit: Elicit | None = None
    elicit_url: ElicitUrl | None = None
    elicit_complete: Callable[[str], Awaitable[None]] | None = None
    if not modern and ctx.session.can_send_request:
        async def elicit(message: str, schema: dict[str, Any]) -> mt.ElicitResult:
            return await ctx.session.elicit_form(message, schema, ctx.request_id)

        async def elicit_url(message: str, url: str, elicitation_id: str) -> mt.ElicitResult:
            return await ctx.session.elicit_url(message, url, elicitation_id, ctx.request_id)

        async def elicit_complete(elicitation_id: str) -> None:
            await ctx.session.send_elicit_complete(elicitation_id, ctx.request_id)
    return HostCall(modern=modern, form=form_capable(ctx), elicit=elicit,
                    url=url_capable(ctx.session.client_capabilities), elicit_url=elicit_url,
                    elicit_complete=elicit_complete,
                    responses=dict(params.input_responses or {}) or None,
                    state=params.request_state, request=ctx.request)


def build_server(asker_for: Callable[[], Asker], name: str = "askbridge",
                 more: Callable[[], Toolset] | None = None) -> Server[Any]:
    """A low-level MCP server with `ask_user` (and the `more` tools), listed only for main
    agents."""

    async def list_tools(ctx: ServerRequestContext[Any, Any],
                         params: mt.PaginatedRequestParams | None) -> mt.ListToolsResult:
        asker = asker_for()
        card = isinstance(asker, CardAsker)
        extra = more().tools() if more else []
        tools = [tool(card), *extra] if await asker.may_ask() else []
        if card and client_supports_apps(ctx):  # the card's own tool: hosts with MCP Apps only
            tools.append(apps.answer_tool())
        return mt.ListToolsResult(tools=tools)

    async def list_resources(ctx: ServerRequestContext[Any, Any],
                             params: mt.PaginatedRequestParams | None) -> mt.ListResourcesResult:
        card = isinstance(asker_for(), CardAsker)
        return mt.ListResourcesResult(resources=[apps.card_resource()] if card else [])

    async def read_resource(ctx: ServerRequestContext[Any, Any],
                            params: mt.ReadResourceRequestParams) -> mt.ReadResourceResult:
        if str(params.uri) != apps.CARD_URI or not isinstance(asker_for(), CardAsker):
            raise MCPError(mt.INVALID_PARAMS,
                           f"No resource {params.uri}; the only one is {apps.CARD_URI}.",
                           {"uri": str(params.uri)})
        return apps.card_contents()

    async def list_templates(ctx: ServerRequestContext[Any, Any],
                             params: mt.PaginatedRequestParams | None
                             ) -> mt.ListResourceTemplatesResult:
        return mt.ListResourceTemplatesResult(resource_templates=[])  # the card is no template

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: mt.CallToolRequestParams,
                        ) -> mt.CallToolResult | mt.InputRequiredResult:
        card_asker = asker_for()
        if params.name == apps.ANSWER_TOOL and isinstance(card_asker, CardAsker):
            return await card_asker.answer_card(dict(params.arguments or {}))
        extra = more() if more else None
        if params.name != TOOL_NAME and not (extra and params.name in extra.names):
            # A protocol error, as MCP says for an unknown tool (not a tool result that failed).
            raise MCPError(mt.INVALID_PARAMS,
                           f"Unknown tool {params.name!r}; the only tool is {TOOL_NAME}.")
        asker = asker_for()
        if not await asker.may_ask():
            return failure_result(
                f"{params.name} is only for main sessions; continue with your best judgment.")

        async def progress(done: float, total: float, message: str) -> None:
            await ctx.session.report_progress(done, total, message)

        # Text the SDK could not have parsed: refused by name, like the 422 (over HTTP the body's
        # faults ride in the request's scope; over stdio, in the context of the line read).
        faults = argument_problems(getattr(ctx.request, "scope", {}).get(TEXT_FAULTS)
                                   or LINE_FAULTS.get())
        if extra and params.name in extra.names:
            return await extra.call(params.name, dict(params.arguments or {}), progress, faults,  # type: ignore[no-any-return]
                                    ctx.protocol_version in MODERN_PROTOCOL_VERSIONS)
        if faults:
            return error_result(faults)
        try:
            outcome = await asker.ask(dict(params.arguments or {}), progress,
                                      host_call(ctx, params))
        except InvalidRequest as exc:
            return error_result(exc.problems)
        except AskFailure as exc:
            return failure_result(str(exc))
        if isinstance(outcome, FormRound) and outcome.url:
            link = mt.ElicitRequest(params=mt.ElicitRequestURLParams(
                message=outcome.message, url=outcome.url, elicitation_id=outcome.state))
            return mt.InputRequiredResult(input_requests={URL_KEY: link},
                                          request_state=outcome.state)
        if isinstance(outcome, FormRound):
            form = mt.ElicitRequest(params=mt.ElicitRequestFormParams(
                message=outcome.message, requested_schema=outcome.schema))
            return mt.InputRequiredResult(input_requests={ELICIT_KEY: form},
                                          request_state=outcome.state)
        return mt.CallToolResult(content=[mt.TextContent(type="text", text=result_lines(outcome))],
                                 structured_content=outcome.to_json())

    server: Server[Any] = Server(name, version=package_version(), instructions=GUIDANCE,
                                 on_list_tools=list_tools, on_call_tool=call_tool,
                                 on_list_resources=list_resources,
                                 on_list_resource_templates=list_templates,
                                 on_read_resource=read_resource)
    server.extensions[apps.EXTENSION] = {"mimeTypes": [apps.CARD_MIME]}
    return server


class AskFailure(Exception):
    """The ask could not be made (409 pending, 403 subagent, server down); text for the model."""
