"""Fixtures for the MCP tests: the browser the question card is shown in; and the report line
when the conformance suite was skipped on purpose."""

import os

import pytest

from tests.adapters.web.browser import browser
from tests.bridge.mcp.conformance import SWITCH

__all__ = ["browser"]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if os.environ.get(SWITCH, "").lower() == "off":
        terminalreporter.write_line(
            f"MCP conformance suite NOT run ({SWITCH}=off): it needs Node 22 in .node/ "
            "(bash .ci/run installs it)", yellow=True, bold=True)
