"""What an operator scrapes and probes: `/metrics` in Prometheus' text format counting asks,
outcomes, time to answer, deliveries, 429s, hook retries and what is pending; `/readyz` saying
whether the store answers and its schema is current."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.adapters.webhook.support import post_reply
from tests.fakes.gateway import gateway
from tests.harness import AGENT_TOKEN, WEBHOOK_SECRET, make_config, running, until
from tests.samples import DEPLOY

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}


async def scrape(http: httpx.AsyncClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = await http.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.text) for s in family.samples}


async def test_metrics_count_what_happened(tmp_path: Path) -> None:
    async with gateway(WEBHOOK_SECRET) as gw:
        config = make_config(
            tmp_path, webhooks={"sms": {"secret_env": "HOOK_SECRET", "url": gw.url}},
            events=[{"url": gw.url + "/events", "secret_env": "HOOK_SECRET",
                     "retry_start_seconds": 0.05}])
        async with running(config) as r, r.http() as http:
            before = await scrape(http)

            async def webhook_deliveries_are(count: int) -> bool:
                key = ("askbridge_deliveries_total", (("platform", "webhook"),))
                return (await scrape(http)).get(key, 0.0) - before.get(key, 0.0) == count

            gw.fail_next = [429]  # the gateway asks to slow down once, then takes the prompt
            first = (await http.post("/v1/sessions/a/questions", json=DEPLOY, headers=AUTH)).json()
            await until(lambda: gw.prompts())
            during = await scrape(http)
            assert (await post_reply(http, "2")).json()["accepted"] is True
            second = (await http.post("/v1/sessions/b/questions", json=DEPLOY, headers=AUTH)).json()
            # Its prompt delivered and counted before the cancel (a cancel sooner would rightly
            # stop a prompt not yet sent).
            await until(lambda: webhook_deliveries_are(2))
            await http.post(f"/v1/questions/{second['id']}/cancel", headers=AUTH)
            after = await scrape(http)

    def grew(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    assert first["id"] != second["id"]
    assert grew("askbridge_questions_asked_total") == 2
    assert grew("askbridge_questions_answered_total") == 1
    assert grew("askbridge_questions_no_answer_total", reason="cancelled") == 1
    assert grew("askbridge_time_to_answer_seconds_count") == 1
    assert grew("askbridge_time_to_answer_seconds_bucket", le="+Inf") == 1
    assert grew("askbridge_deliveries_total", platform="webhook") == 2
    assert grew("askbridge_rate_limited_total", platform="webhook") == 1
    assert during[("askbridge_questions_pending", ())] == 1
    assert after[("askbridge_questions_pending", ())] == 0


async def test_event_hook_retries_are_counted(tmp_path: Path) -> None:
    async with gateway(WEBHOOK_SECRET) as gw:
        gw.fail_next = [500]
        config = make_config(tmp_path, events=[{
            "url": gw.url, "secret_env": "HOOK_SECRET", "retry_start_seconds": 0.05}])
        async with running(config) as r, r.http() as http:
            before = await scrape(http)
            await http.post("/v1/sessions/a/questions", json=DEPLOY, headers=AUTH)

            async def retried() -> bool:
                now = await scrape(http)
                key = ("askbridge_event_hook_retries_total", ())
                return now[key] - before[key] >= 1

            await until(retried, timeout=20)


async def test_readyz_says_whether_store_and_schema_are_ready(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        ready = await http.get("/readyz")

        def roll_back_one_migration() -> None:
            with sqlite3.connect(tmp_path / "askbridge.db") as db:
                db.execute("DELETE FROM schema_version WHERE version = "
                           "(SELECT MAX(version) FROM schema_version)")

        # In a thread: the server runs on this loop, and a transaction of its own open at this
        # moment must be able to finish while this write waits for the lock.
        await asyncio.to_thread(roll_back_one_migration)
        behind = await http.get("/readyz")
        alive = await http.get("/healthz")
    assert ready.status_code == 200
    assert ready.json() == {"ready": True, "store": "ok", "migrations": "current",
                            "leader": None}
    assert behind.status_code == 503 and behind.json()["migrations"].startswith("missing")
    assert alive.status_code == 200  # alive, just not ready
