"""Figures every reliability scenario records: printed as they come and summed up at the end."""

from __future__ import annotations

from typing import Any

FIGURES: list[tuple[str, dict[str, Any]]] = []


class Figures:
    """`figures.add("crash", pending=1000, …)`: one line per scenario, shown with -s and at the end."""

    def add(self, scenario: str, **numbers: Any) -> None:
        FIGURES.append((scenario, numbers))
        print(f"\n[reliability] {scenario}: " + ", ".join(f"{k}={v}" for k, v in numbers.items()),
              flush=True)
