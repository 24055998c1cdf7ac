"""Slack's mrkdwn control characters: `&`, `<` and `>` travel as entities, both ways."""

from __future__ import annotations


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def unescape(text: str) -> str:
    """Slack sends message text with `&`, `<`, `>` as entities; answers are kept as typed."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
