"""What operators count, kept in this process as plain numbers: `/metrics` reads them per scrape.

Asks, outcomes by reason, time to answer, deliveries and failures per platform, 429s received
and event-hook retries. Counts are this process's own (its asks, the resolutions it won, its
sends), as Prometheus expects of each replica it scrapes. Nothing below the server imports a
metrics library: the core and the adapters only add to these (here, below the core, so that
`import bridge` gives adapters `count_rate_limited` without loading the core)."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field

ANSWER_BUCKETS = (5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0)
"""Upper bounds (seconds) of the time-to-answer histogram: from a quick tap to the longest ask."""


@dataclass
class Tally:
    asked: int = 0
    answered: int = 0
    no_answer: Counter[str] = field(default_factory=Counter)
    """By reason: expired, skipped, cancelled, undelivered."""
    answer_buckets: list[int] = field(default_factory=lambda: [0] * (len(ANSWER_BUCKETS) + 1))
    """Answers per bucket (not cumulative); the last one is past every bound."""
    answer_seconds: float = 0.0
    deliveries: Counter[str] = field(default_factory=Counter)
    delivery_failures: Counter[str] = field(default_factory=Counter)
    rate_limited: Counter[str] = field(default_factory=Counter)
    """429s (or the platform's own "slow down") received, by platform."""
    hook_retries: int = 0

    def question_resolved(self, status: str, reason: str | None, seconds: float) -> None:
        if status == "answered":
            self.answered += 1
            self.answer_buckets[bisect_left(ANSWER_BUCKETS, seconds)] += 1
            self.answer_seconds += seconds
        else:
            self.no_answer[reason or "unknown"] += 1

    def delivered(self, platform: str, ok: bool) -> None:
        (self.deliveries if ok else self.delivery_failures)[platform] += 1


TALLY = Tally()
"""The process's one tally (one process, one scrape target), as prometheus_client's own
default registry is."""


def count_rate_limited(platform: str) -> None:
    """An adapter was told to slow down (HTTP 429 or the platform's equivalent)."""
    TALLY.rate_limited[platform] += 1
