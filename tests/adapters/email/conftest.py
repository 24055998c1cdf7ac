"""The e-mail suite's report line when it was skipped on purpose."""

from __future__ import annotations

import pytest

from tests.adapters.email.dovecot import email_off


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if email_off():
        terminalreporter.write_line(
            "E-mail suite NOT run (ASKBRIDGE_TEST_EMAIL=off): it needs Debian's dovecot-imapd",
            yellow=True, bold=True)
