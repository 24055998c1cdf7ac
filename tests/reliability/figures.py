"""Figures every reliability scenario records: printed as they come and summed up at the end."""

from __future__ import annotations

from typing import Any

import pytest

PROPERTY = "reliability figures"
"""The test report's user property that carries a scenario's line (`scenario: numbers`) to the
end-of-run summary (tests/conftest.py): under pytest-xdist it is printed by the controller, which
sees the workers' reports but none of their memory."""


class Figures:
    """`figures.add("crash", pending=1000, …)`: one line per scenario, shown with -s and at the end."""

    def __init__(self, node: pytest.Item) -> None:
        self.node = node

    def add(self, scenario: str, **numbers: Any) -> None:
        line = ", ".join(f"{k}={v}" for k, v in numbers.items())
        self.node.user_properties.append((PROPERTY, f"{scenario}: {line}"))
        print(f"\n[reliability] {scenario}: {line}", flush=True)
