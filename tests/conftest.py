"""Shared fixtures: no proxies (httpx and slack_sdk would route 127.0.0.1 through them)."""

from __future__ import annotations

import os

import pytest

for _var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    os.environ.pop(_var, None)


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from tests.pg import server_url

    if server_url() is None:
        terminalreporter.write_line(
            "PostgreSQL suite NOT run (ASKBRIDGE_TEST_POSTGRES_URL=off); run it with "
            "ASKBRIDGE_TEST_POSTGRES_URL=postgresql://user@host:port/db", yellow=True, bold=True)
