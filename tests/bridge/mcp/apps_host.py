"""An MCP host that renders MCP Apps, as far as the tests need one: it declares the extension
and speaks to /mcp over plain HTTP with the agent's token."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bridge.mcp.apps import CARD_MIME, EXTENSION
from tests.harness import AGENT_TOKEN, base_env, make_config

APPS = {"extensions": {EXTENSION: {"mimeTypes": [CARD_MIME]}}}
"""The client capabilities of a host that renders MCP Apps."""
OTHER_TOKEN = "test-other-agent-token-0123456789"


def two_agents(tmp: Path) -> tuple[Any, dict[str, str]]:
    """A config with two main agents (`assistant`, AGENT_TOKEN; `other`, OTHER_TOKEN), and its
    environment."""
    agents = [
        {"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main",
         "surfaces": ["webhook:sms:+100"]},
        {"name": "other", "token_env": "OTHER_TOKEN", "role": "main", "surfaces": ["web"]},
    ]
    return make_config(tmp, agents=agents), {**base_env(), "OTHER_TOKEN": OTHER_TOKEN}


__all__ = ["AGENT_TOKEN", "APPS", "OTHER_TOKEN", "two_agents"]
