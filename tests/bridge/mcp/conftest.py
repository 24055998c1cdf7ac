"""Fixtures for the MCP tests: the browser the question card is shown in. (The line saying the
conformance suite was skipped on purpose is printed by tests/conftest.py.)"""

from tests.adapters.web.browser import browser

__all__ = ["browser"]
