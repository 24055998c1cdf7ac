"""Figures every reliability scenario records: printed as they come and summed up at the end."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

_FIGURES: list[tuple[str, dict[str, Any]]] = []


class Figures:
    """`figures.add("crash", pending=1000, …)`: one line per scenario, shown with -s and at the end."""

    def add(self, scenario: str, **numbers: Any) -> None:
        _FIGURES.append((scenario, numbers))
        print(f"\n[reliability] {scenario}: " + ", ".join(f"{k}={v}" for k, v in numbers.items()),
              flush=True)


@pytest.fixture
def figures() -> Iterator[Figures]:
    yield Figures()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _FIGURES:
        return
    terminalreporter.section("reliability figures")
    for scenario, numbers in _FIGURES:
        terminalreporter.write_line(
            f"{scenario}: " + ", ".join(f"{k}={v}" for k, v in numbers.items()))
