"""A request body read once: handed on to the next reader as read, or its problem."""

from __future__ import annotations

import json

from bridge.http.bodies import reread
from bridge.model.json_input import HUGE


async def test_reread_hands_on_the_body_as_read_or_the_problem() -> None:
    messages: list[dict[str, object]] = [
        {"type": "http.request", "body": b'{"n": 1' + b"0" * 5000, "more_body": True},
                {"type": "http.request", "body": b"}", "more_body": False},
                {"type": "http.disconnect"}]

    async def receive() -> dict[str, object]:
        return messages.pop(0)

    replay, problem = await reread(receive)
    assert problem is None and replay is not None
    first = await replay()
    assert json.loads(first["body"]) == {"n": HUGE}
    assert (await replay())["type"] == "http.disconnect"  # then the real stream again

    deep: list[dict[str, object]] = [
        {"type": "http.request", "body": b"[" * 50 + b"]" * 50, "more_body": False}]

    async def deep_receive() -> dict[str, object]:
        return deep.pop(0)

    _, problem = await reread(deep_receive)
    assert problem is not None and "deeper" in problem
