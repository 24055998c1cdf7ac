"""`askbridge mcp`: the stdio MCP server, asking through a running askbridge over HTTP.

A call asks (or re-attaches to the same questions pending in the session), then waits for the
end with one blocking HTTP request, so when this process ends in any way (its client closes
stdin, it is killed) the connection drops and the server cancels the question. When the host
declares form elicitation and the agent's `host_form` is `race`, the host's own form races the
remote surfaces exactly as at /mcp; its answer is handed in over HTTP (`host-answer`)."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import anyio
import httpx
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.stdio import stdio_server

from bridge.agent.client import AskClient, AskError, unreachable
from bridge.mcp.approval_tools import ApprovalTools
from bridge.mcp.approvers import HttpApprover
from bridge.mcp.odd_text import mended_lines
from bridge.mcp.racing import Asked, FormRace
from bridge.mcp.tool import AskFailure, FormRound, HostCall, Progress, build_server
from bridge.model.contract import AskRequest, AskResult
from bridge.model.errors import NOT_AUTHORIZED
from bridge.model.validation import InvalidRequest, Problem, parse_ask_request


@dataclass(frozen=True)
class Remote:
    """A question asked over HTTP: its id, its request, when the server created it (ms)."""

    id: str
    request: AskRequest
    created_at: int


def _ms(stamp: str) -> int:
    return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)


class HttpAsker(FormRace):
    def __init__(self, client: AskClient, interval: float) -> None:
        self.client = client
        self.interval = interval
        self._me: dict[str, Any] | None = None

    async def _about_me(self) -> dict[str, Any]:
        if self._me is None:
            self._me = await self.client.me()
        return self._me

    async def may_ask(self) -> bool:
        try:
            return bool((await self._about_me())["role"] == "main")
        except (AskError, httpx.HTTPError):
            return True  # unknown yet: list the tool; a call explains what is wrong

    def locale(self) -> str:
        """The agent's, for the form's few own words (known once a race was decided)."""
        return str((self._me or {}).get("locale", "en"))

    async def submit(self, asked: Asked, answers: dict[str, list[str]] | None) -> str | None:
        return await self.client.host_answer(asked.id, answers)

    def wait_modern(self, asked: Asked) -> Awaitable[AskResult]:
        return self.client.follow(asked.id)

    def wait_legacy(self, asked: Asked, host: HostCall) -> Awaitable[AskResult]:
        return self.client.follow(asked.id)

    async def ask(self, arguments: dict[str, Any], progress: Progress,
                  host: HostCall) -> AskResult | FormRound:
        """Ask (or re-attach), race the host's form when it has one, and wait over HTTP."""
        request = parse_ask_request(arguments)
        try:
            asked = await self._retried(host) or await self._asked(arguments, request)
            race = host.form and (await self._about_me()).get("hostForm", "race") == "race"
            return await self.race(asked, progress, host, race)
        except AskError as exc:
            if exc.status == 401:
                raise AskFailure(f"{NOT_AUTHORIZED} askbridge mcp sends the value of "
                                 "ASKBRIDGE_TOKEN (or --token): set it to the agent's token."
                                 ) from None
            if exc.status == 422:
                raise InvalidRequest([Problem(loc=d.get("loc", "body"), msg=d.get("msg", ""))
                                      for d in exc.details]) from None
            raise AskFailure(" ".join(d.get("msg", "") for d in exc.details) or str(exc)) from None
        except httpx.TransportError:
            raise AskFailure(unreachable(self.client.url)) from None

    async def _asked(self, arguments: dict[str, Any], request: AskRequest) -> Remote:
        """Ask, or re-attach to the same questions pending in the session: then the question's
        own creation and deadline count (a re-issued call's time left is the question's)."""
        created = await self.client.create(arguments, attach=True)
        start, end = _ms(str(created["createdAt"])), _ms(str(created["expiresAt"]))
        timeout = round((end - start) / 1000)
        return Remote(str(created["id"]), request.model_copy(update={"timeout_seconds": timeout}),
                      start)

    async def _retried(self, host: HostCall) -> Remote | None:
        """2026-07-28: the question a retry's requestState names (sealed by this process),
        even if it ended meanwhile: a remote answer that won is what the retry returns."""
        if not (host.modern and host.state):
            return None
        try:
            view = await self.client.question(host.state)
        except AskError as exc:
            if exc.status == 404:
                return None
            raise
        return Remote(str(view["id"]), parse_ask_request(view["request"]),
                      _ms(str(view["createdAt"])))


async def run(url: str | None = None, token: str | None = None, session: str | None = None) -> None:
    interval = float(os.environ.get("ASKBRIDGE_PROGRESS_SECONDS", "10"))
    async with AskClient(url, token, session) as client:
        asker = HttpAsker(client, interval)
        tools = ApprovalTools(HttpApprover(client, interval))
        server = build_server(lambda: asker, more=lambda: tools)
        # One process, one host: requestState never reaches another, so a key of its own.
        server.middleware.append(RequestStateBoundary(RequestStateSecurity.ephemeral(),
                                                      default_audience="askbridge"))
        # Lines mended before the SDK parses them: its parser drops a line with a lone surrogate
        # unanswered, and the host's call would wait forever (the tool refuses it by name).
        text = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8",
                                                errors="replace"))
        async with stdio_server(stdin=cast(Any, mended_lines(aiter(text)))) as (read, write):
            await server.run(read, write, server.create_initialization_options())


def main(url: str | None = None, token: str | None = None, session: str | None = None) -> None:
    anyio.run(run, url, token, session)
