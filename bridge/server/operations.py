"""`/readyz` and `/metrics`: what an orchestrator and a Prometheus scrape ask of each replica."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from itertools import accumulate
from typing import Any

import structlog
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from bridge.http.api import Routes
from bridge.runtime.tally import ANSWER_BUCKETS, TALLY, Tally
from bridge.server.composition import Bridge

log = structlog.get_logger("askbridge.operations")
READY_TIMEOUT = 5.0
"""A store that takes longer than this to answer one read is not ready."""


class TallyCollector:
    """The tally as Prometheus metric families, read at each scrape (`pending` is set just
    before, from the store: the questions waiting now, whoever asked them)."""

    def __init__(self, tally: Tally) -> None:
        self.tally = tally
        self.pending = 0

    def collect(self) -> Iterator[Metric]:
        t = self.tally
        yield _counter("askbridge_questions_asked", "Questions asked here.", t.asked)
        yield _counter("askbridge_questions_answered", "Questions answered (resolved here).",
                       t.answered)
        yield _counter("askbridge_questions_no_answer", "Questions that ended without an "
                       "answer, by reason.", t.no_answer, "reason")
        cumulative = list(accumulate(t.answer_buckets))
        yield HistogramMetricFamily(
            "askbridge_time_to_answer_seconds", "From the ask to the answer.",
            buckets=[*((str(b), n) for b, n in zip(ANSWER_BUCKETS, cumulative, strict=False)),
                     ("+Inf", cumulative[-1])],
            sum_value=t.answer_seconds)
        yield _counter("askbridge_deliveries", "Prompts delivered, by platform.", t.deliveries,
                       "platform")
        yield _counter("askbridge_delivery_failures", "Prompts that could not be delivered, by "
                       "platform.", t.delivery_failures, "platform")
        yield _counter("askbridge_rate_limited", "429s (slow down) received, by platform.",
                       t.rate_limited, "platform")
        yield _counter("askbridge_event_hook_retries", "Event hook posts scheduled for a retry.",
                       t.hook_retries)
        yield GaugeMetricFamily("askbridge_questions_pending", "Questions waiting for an answer "
                                "now (all replicas).", value=self.pending)


def _counter(name: str, doc: str, value: int | dict[str, int], label: str = "") -> Metric:
    if isinstance(value, int):
        return CounterMetricFamily(name, doc, value=value)
    family = CounterMetricFamily(name, doc, labels=[label])
    for key, count in sorted(value.items()):
        family.add_metric([key], count)
    return family


async def readiness(bridge: Bridge) -> tuple[bool, dict[str, Any]]:
    """Whether this replica can take asks: the store answers and its schema is current."""
    try:
        missing = await asyncio.wait_for(bridge.store.migrations_missing(), READY_TIMEOUT)
    except Exception as exc:
        log.warning("readiness_store_unreachable", error=type(exc).__name__)
        return False, {"ready": False, "store": f"unreachable ({type(exc).__name__})",
                       "migrations": "unknown", "leader": _leading(bridge)}
    body = {"ready": bridge.started and not missing, "store": "ok",
            "migrations": "current" if not missing else f"missing {missing}",
            "leader": _leading(bridge)}
    return bool(body["ready"]), body


def _leading(bridge: Bridge) -> bool | None:
    """Whether this replica holds the long connections; None when there are none to hold."""
    leader = bridge.leader
    return None if leader is None or not leader.connections else leader.leading


def add_operations(ops: Routes, bridge: Bridge) -> None:
    registry = CollectorRegistry(auto_describe=False)
    collector = TallyCollector(TALLY)
    registry.register(collector)

    @ops.add("GET", "/readyz", response_model=dict[str, Any],
             summary="Ready to take asks: the store answers and its schema is current")
    async def readyz(_: Request) -> JSONResponse:
        ready, body = await readiness(bridge)
        return JSONResponse(body, status_code=200 if ready else 503)

    @ops.add("GET", "/metrics", summary="Prometheus metrics (text format)",
             response_class=PlainTextResponse)
    async def metrics(_: Request) -> Response:
        try:
            collector.pending = len(await bridge.store.pending_deadlines())
        except Exception as exc:  # the other numbers are still worth a scrape
            log.warning("metrics_pending_unknown", error=type(exc).__name__)
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
