"""Shared fixtures: no proxies (httpx and slack_sdk would route 127.0.0.1 through them); the
server groups pytest-xdist keeps on one worker; the end-of-run lines naming skipped suites."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

import bridge.mcp.http  # noqa: F401  (why: below)

for _var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    os.environ.pop(_var, None)

# The server imports the MCP SDK on a worker thread on /mcp's first request (bridge/mcp/lazy.py),
# and pydantic's model building there calls ast.parse. CPython 3.11.7 (these machines') keeps the
# AST converter's recursion depth in state shared by all threads (CPython issue 106905), so an
# ast.parse on the main thread at the same moment (pytest's assertion rewriting of a module
# imported late, the i18n extractor) fails with "SystemError: AST constructor recursion depth
# mismatch". That import outlives the test that started it, so tests load the SDK here, once,
# on the main thread; tests/bridge/mcp/test_lazy.py checks the laziness in a process of its own.

# A shell that starts this run in the background (`bash .ci/run &`) hands it SIGINT ignored, and
# children keep an ignored signal across exec: the CLI tests that press Ctrl-C on a waiting
# `askbridge ask` would wait forever. Their children get Python's default handling back.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

TESTS = Path(__file__).parent

# Synapse (tests/adapters/matrix/synapse.py) and Dovecot (tests/adapters/email/dovecot.py) are
# started once per test process. Under pytest-xdist (`-n 2 --dist loadgroup`, pyproject addopts)
# every test that uses one is put in that server's group, so the group runs on one worker and the
# server starts once, not once per worker: its own folder, under adapters/<platform>/, and the
# contract suite's tests for that platform (parametrized `platform=`).
SERVER_GROUPS = {"matrix": "synapse", "email": "dovecot"}


def server_group(item: pytest.Item) -> str | None:
    try:
        parts = item.path.relative_to(TESTS).parts
    except ValueError:
        parts = ()
    if len(parts) > 2 and parts[0] == "adapters" and parts[1] in SERVER_GROUPS:
        return SERVER_GROUPS[parts[1]]
    callspec = getattr(item, "callspec", None)
    platform = callspec.params.get("platform") if callspec is not None else None
    return SERVER_GROUPS.get(platform) if isinstance(platform, str) else None


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> Iterator[None]:
    """Marks each server's tests with its group before xdist's worker reads the marks (into
    node ids, `test…@synapse`); after it, fails the run if a marked test got no group, as
    happened silently with pytest 9.2 (pytest-xdist issue #1386): Synapse and Dovecot would
    start on both workers."""
    for item in items:
        group = server_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    yield
    if getattr(config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
        lost = [i.nodeid for i in items if server_group(i) and "@" not in i.nodeid]
        if lost:
            raise pytest.UsageError(
                f"pytest-xdist did not group {len(lost)} tests (first: {lost[0]}), so their "
                "servers would start on every worker: use a pytest/pytest-xdist pair whose "
                "--dist loadgroup works (see the pytest pin in pyproject.toml), or run with -n 0.")


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)


_figures: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """The reliability scenarios' figures, from each test's report (a worker's, under xdist)."""
    from tests.reliability.figures import PROPERTY

    if report.when == "call":
        _figures.extend(str(value) for name, value in report.user_properties if name == PROPERTY)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Every knowingly skipped suite and the reliability figures, said once at the end. Kept
    here, in the root conftest: under pytest-xdist only the controller prints, and it loads no
    conftest below tests/."""
    from tests.adapters.email.dovecot import email_off
    from tests.adapters.matrix.synapse import matrix_off
    from tests.bridge.mcp.conformance import SWITCH
    from tests.pg import server_url

    if _figures:
        terminalreporter.section("reliability figures")
        for line in _figures:
            terminalreporter.write_line(line)

    if server_url() is None:
        terminalreporter.write_line(
            "PostgreSQL suite NOT run (ASKBRIDGE_TEST_POSTGRES_URL=off); run it with "
            "ASKBRIDGE_TEST_POSTGRES_URL=postgresql://user@host:port/db", yellow=True, bold=True)
    if matrix_off():
        terminalreporter.write_line(
            "Matrix suite NOT run (ASKBRIDGE_TEST_MATRIX=off): it needs the matrix-synapse "
            "package from the test extras", yellow=True, bold=True)
    if email_off():
        terminalreporter.write_line(
            "E-mail suite NOT run (ASKBRIDGE_TEST_EMAIL=off): it needs Debian's dovecot-imapd",
            yellow=True, bold=True)
    if os.environ.get(SWITCH, "").lower() == "off":
        terminalreporter.write_line(
            f"MCP conformance suite NOT run ({SWITCH}=off): it needs Node 22 in .node/ "
            "(bash .ci/run installs it)", yellow=True, bold=True)
