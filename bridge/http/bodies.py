"""Request bodies read through the one JSON parser (`parse_json`), for routes and ASGI apps."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.types import Message, Receive

from bridge.model.json_input import BadJson, declared_json, parse_json


async def read_json(request: Request) -> Any:
    """The request's body, parsed by `parse_json`, once its declared type is JSON."""
    declared_json(request.headers.get("content-type"))
    return parse_json(await request.body())


async def reread(receive: Receive) -> tuple[Receive | None, str | None]:
    """For ASGI apps that parse bodies themselves (the MCP SDK): read the whole body through
    `parse_json`; give back the problem, or a `receive` that hands on the body as askbridge read it
    (re-encoded, so an over-long integer arrives clamped, never as a parse crash). No `receive`
    when the whole body never came (the client left, or it went over the size limit)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None, None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    raw = b"".join(chunks)
    try:
        # Faulty text is left to the tool's own checks, which name the argument it is in.
        body = json.dumps(parse_json(raw, text=False)).encode() if raw else raw
    except BadJson as exc:
        return receive, exc.problems[0].msg
    return replay({"type": "http.request", "body": body, "more_body": False}, receive), None


def replay(first: Message, receive: Receive) -> Receive:
    """`receive` that hands on `first` (a message already read) before anything else."""
    sent = False

    async def replaying() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return first
        return await receive()

    return replaying
