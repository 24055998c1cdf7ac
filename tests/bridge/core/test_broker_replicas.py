"""Two bridges on one PostgreSQL database: asks and answers cross replicas through NOTIFY."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.adapters.webhook.support import post_reply
from tests.harness import make_config, running, until
from tests.pg import scratch_database, server_url
from tests.samples import DEPLOY

pytestmark = pytest.mark.skipif(server_url() is None, reason="ASKBRIDGE_TEST_POSTGRES_URL=off")


async def test_ask_on_a_answer_on_b_wakes_the_agent_on_a(tmp_path: Path) -> None:
    async with scratch_database() as url:
        config = make_config(tmp_path, store={"url": url})
        async with running(config) as a, running(config) as b:
            async with a.client() as agent, b.http() as http:
                ask = asyncio.create_task(agent.ask(DEPLOY))
                await until(lambda: b.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
                assert (await post_reply(http, "2")).json()["accepted"] is True
                result = await asyncio.wait_for(ask, 5)
                assert result.answer_map() == {"deploy_target": ["Production"]}


async def test_expiry_armed_on_every_replica_resolves_once(tmp_path: Path) -> None:
    from bridge.store import now_ms

    async with scratch_database() as url:
        config = make_config(tmp_path, store={"url": url})
        async with running(config) as a, running(config) as b, a.client() as agent:
            created = await agent.create(DEPLOY)
            qid = created["id"]
            await until(lambda: qid in b.bridge.broker.deadlines)  # B learned of it by NOTIFY
            soon = now_ms() + 300
            a.bridge.broker.deadlines.arm(qid, soon)
            b.bridge.broker.deadlines.arm(qid, soon)
            result = await agent.result(qid, wait=10)
            assert result is not None and result.reason == "expired"
            await until(lambda: _all_finalized(a, qid))


async def _all_finalized(r: object, qid: str) -> bool:
    ds = await r.bridge.store.deliveries(qid)  # type: ignore[attr-defined]
    return all(d.finalized for d in ds)


async def test_the_web_ui_on_every_replica_hears_of_questions_asked_elsewhere(
    tmp_path: Path,
) -> None:
    async with scratch_database() as url:
        config = make_config(tmp_path, surfaces=["web", "webhook:sms:+100"], store={"url": url})
        async with running(config) as a, running(config) as b:
            page: asyncio.Queue[dict[str, object]] = asyncio.Queue()
            b.bridge.adapters["web"].listeners.add(page)  # type: ignore[attr-defined]
            async with a.client() as agent, a.http() as http:
                qid = (await agent.create(DEPLOY))["id"]
                created = await asyncio.wait_for(_next(page, "question", qid), 5)
                await until(lambda: a.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
                assert (await post_reply(http, "1")).json()["accepted"] is True
                resolved = await asyncio.wait_for(_next(page, "resolved", qid), 5)
            assert created["questionId"] == resolved["questionId"] == qid


async def _next(page: asyncio.Queue[dict[str, object]], kind: str, qid: str) -> dict[str, object]:
    while True:
        event = await page.get()
        if event.get("type") == kind and event.get("questionId") == qid:
            return event
