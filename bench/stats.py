"""Samples, percentiles, and the output: one JSON line per figure, then a readable table."""

from __future__ import annotations

import json
import math
import statistics
import sys
from dataclasses import dataclass, field
from typing import Any


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class Samples:
    name: str
    values: list[float] = field(default_factory=list)

    def add(self, value: float) -> None:
        self.values.append(value)

    @property
    def median(self) -> float:
        return statistics.median(self.values) if self.values else math.nan

    @property
    def p99(self) -> float:
        return percentile(self.values, 99)

    def summary(self) -> dict[str, Any]:
        return {"n": len(self.values), "median_ms": round(self.median, 3),
                "p99_ms": round(self.p99, 3),
                "min_ms": round(min(self.values), 3) if self.values else None}


@dataclass
class Report:
    """Figures as they come: a JSON line each on stdout; the table at the end."""

    rows: list[tuple[str, str, str, str]] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)

    def emit(self, bench: str, **fields: Any) -> None:
        self.figures[bench] = fields
        print(json.dumps({"bench": bench, **fields}), flush=True)

    def row(self, figure: str, value: str, target: str = "", verdict: str = "") -> None:
        self.rows.append((figure, value, target, verdict))

    def table(self) -> str:
        head = ("figure", "value", "target", "")
        widths = [max(len(r[i]) for r in [head, *self.rows]) for i in range(4)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                 for r in [head, tuple("-" * w for w in widths), *self.rows]]
        return "\n".join(lines)

    def print_table(self) -> None:
        print("\n" + self.table(), file=sys.stdout, flush=True)


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"
