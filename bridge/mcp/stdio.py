"""`askbridge mcp`: the stdio MCP server, asking through a running askbridge over HTTP.

The ask is one blocking HTTP request, so when this process ends in any way (its client closes
stdin, it is killed) the connection drops and the server cancels the question.
"""

from __future__ import annotations

import os
from typing import Any

import anyio
import httpx
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.stdio import stdio_server

from bridge.agent.client import AskClient, AskError, unreachable
from bridge.mcp.tool import AskFailure, HostCall, Progress, build_server, with_progress
from bridge.model.contract import AskResult
from bridge.model.errors import NOT_AUTHORIZED
from bridge.model.validation import InvalidRequest, Problem, parse_ask_request


class HttpAsker:
    def __init__(self, client: AskClient, interval: float) -> None:
        self.client = client
        self.interval = interval
        self._role: str | None = None

    async def may_ask(self) -> bool:
        if self._role is None:
            try:
                self._role = str((await self.client.me())["role"])
            except (AskError, httpx.HTTPError):
                return True  # unknown yet: list the tool; a call explains what is wrong
        return self._role == "main"

    async def ask(self, arguments: dict[str, Any], progress: Progress,
                  host: HostCall) -> AskResult:
        """One blocking ask over HTTP, whatever the host's revision: the host's own form is
        /mcp's (it answers in-process); here the remote surfaces answer."""
        request = parse_ask_request(arguments)
        try:
            return await with_progress(self.client.ask(arguments), progress, self.interval,
                                       request.timeout_seconds)
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


async def run(url: str | None = None, token: str | None = None, session: str | None = None) -> None:
    interval = float(os.environ.get("ASKBRIDGE_PROGRESS_SECONDS", "10"))
    async with AskClient(url, token, session) as client:
        asker = HttpAsker(client, interval)
        server = build_server(lambda: asker)
        # One process, one host: requestState never reaches another, so a key of its own.
        server.middleware.append(RequestStateBoundary(RequestStateSecurity.ephemeral(),
                                                      default_audience="askbridge"))
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


def main(url: str | None = None, token: str | None = None, session: str | None = None) -> None:
    anyio.run(run, url, token, session)
