"""What the web surface sends to pages (pure): live events, UI views of records, SSE framing."""

from __future__ import annotations

import json
from typing import Any

from bridge import surface_platform, surface_target

WEB = "web"


CHANGE_EVENTS = {"created": "question", "resolved": "resolved"}
"""Broker changes the pages hear of; each makes a page refetch its state."""


def change_event(kind: str, question_id: str) -> dict[str, Any]:
    return {"type": kind, "questionId": question_id}


def surface_label(surface: str) -> str:
    """A short human name for a surface: `sms` for `webhook:sms:+1`, `telegram` for `telegram:4`."""
    platform = surface_platform(surface)
    if platform == "webhook":
        return surface_target(surface).partition(":")[0] or "webhook"
    return platform


def ui_view(view: dict[str, Any]) -> dict[str, Any]:
    """A record as the page needs it: whether it can be answered here, and who answered it."""
    by: dict[str, str] = view.get("answeredBy") or {}
    elsewhere = bool(by) and by["surface"] != WEB
    return {
        **view,
        "answerable": view["status"] == "pending" and WEB in view["surfaces"],
        "elsewhere": elsewhere,
        "answeredVia": surface_label(by["surface"]) if elsewhere else None,
    }


def sse(event: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(event, separators=(',', ':'))}\n\n".encode()


SSE_HELLO = b"retry: 1500\n\n"
SSE_PING = b": ping\n\n"
