"""Fixtures for the MCP tests: the browser the question card is shown in."""

from tests.adapters.web.browser import browser

__all__ = ["browser"]
