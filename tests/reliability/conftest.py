"""The reliability suite's `figures` fixture, and every scenario's figures summed up at the end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.reliability.figures import FIGURES, Figures


@pytest.fixture
def figures() -> Iterator[Figures]:
    yield Figures()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not FIGURES:
        return
    terminalreporter.section("reliability figures")
    for scenario, numbers in FIGURES:
        terminalreporter.write_line(
            f"{scenario}: " + ", ".join(f"{k}={v}" for k, v in numbers.items()))
