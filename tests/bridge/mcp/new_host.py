"""Hosts on the official MCP SDK 2.x, the product's own: `mode` picks the revision
(`"2026-07-28"` stateless, `"legacy"` the 2025-11-25 handshake)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import mcp.types as mt
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.adapters.webhook.support import post_reply
from tests.harness import AGENT_TOKEN, Running, base_env, make_config, until

MODERN = "2026-07-28"
MODES = [MODERN, "legacy"]
Form = Callable[[mt.ElicitRequestParams], Awaitable[mt.ElicitResult]]


def fast_env() -> dict[str, str]:
    """The server's environment with progress every 0.2 s."""
    return {**base_env(), "ASKBRIDGE_PROGRESS_SECONDS": "0.2"}


@asynccontextmanager
async def new_host(url: str, *, mode: str = MODERN, token: str = AGENT_TOKEN,
                   session: str = "mcp", form: Form | None = None,
                   transport: httpx2.AsyncBaseTransport | None = None,
                   heard: list[Any] | None = None) -> AsyncIterator[Client]:
    """A 2.x host at `url` (/mcp); with `form`, it declares form elicitation and answers with it;
    with `heard`, the server's notifications are appended to it."""
    headers = {"Authorization": f"Bearer {token}", "X-Askbridge-Session": session}
    callback = None
    if form is not None:
        async def callback(context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
            return await form(params)
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60),
                                  transport=transport) as http:
        async def note(message: Any) -> None:
            if heard is not None:
                heard.append(message)

        async with Client(streamable_http_client(url, http_client=http), mode=mode,
                          elicitation_callback=callback,
                          message_handler=note if heard is not None else None) as client:
            yield client


async def answer_remotely(r: Running, text: str) -> None:
    """The person answers `text` on the remote surface (the sms webhook) once it is pending."""
    await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
    async with r.http() as http:
        assert (await post_reply(http, text)).json()["accepted"] is True


def answer(result: mt.CallToolResult) -> Any:
    assert not result.is_error, result.content
    return result.structured_content


async def ended(r: Running) -> Any:
    """The newest question of session `mcp`, once it ended."""
    line = await r.bridge.store.timeline("assistant", "mcp")  # type: ignore[arg-type]
    return line[0] if line and not line[0].pending else None


def late_form(box: list[Running]) -> Form:
    """A form the person fills in too late: the remote answer `production` wins first."""
    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        await answer_remotely(box[0], "production")
        await until(lambda: ended(box[0]))
        return mt.ElicitResult(action="accept", content={"deploy_target": "Canary"})
    return form


async def no_form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
    """A host form that must never be shown (`host_form = "off"`)."""
    raise AssertionError("host_form = off: no form")


def host_form_off(tmp: Path) -> Any:
    """The usual test config, its main agent with `host_form = "off"`."""
    config = make_config(tmp)
    config.agents[0] = config.agents[0].model_copy(update={"host_form": "off"})
    return config
