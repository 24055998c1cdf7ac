"""Deadlines: an expiry timer fires, one passed while down expires at start, and is finalized."""

from __future__ import annotations

from pathlib import Path

from bridge.model.ids import QuestionId
from bridge.store import SqliteStore, now_ms
from tests.adapters.webhook.support import gateway_config
from tests.fakes.gateway import gateway
from tests.harness import WEBHOOK_SECRET, running, until
from tests.samples import DEPLOY


async def test_deadline_passed_while_down_expires_at_start_and_is_finalized(tmp_path: Path) -> None:
    async with gateway(WEBHOOK_SECRET) as gw:
        config = gateway_config(tmp_path, gw.url)
        async with running(config) as r, r.client() as c:
            created = await c.create(DEPLOY)
            await until(gw.prompts)
        store = SqliteStore(config.store_path)
        await store.open()
        await store.db.execute("UPDATE questions SET expires_at = ? WHERE id = ?",
                               (now_ms() - 1000, created["id"]))
        await store.close()
        async with running(config) as r, r.client() as c:
            assert (await c.result(created["id"], wait=5)).to_json() == {  # type: ignore[union-attr]
                "status": "no_answer", "reason": "expired"}
            status = (await until(gw.statuses))[0]
            assert status["text"] == "Deploy: Expired"


async def test_expiry_timer_fires_at_the_deadline(tmp_path: Path) -> None:
    async with gateway(WEBHOOK_SECRET) as gw:
        async with running(gateway_config(tmp_path, gw.url)) as r, r.client() as c:
            created = await c.create(DEPLOY)
            await until(gw.prompts)
            record = await r.bridge.store.get_question(QuestionId(created["id"]))
            assert record is not None
            r.bridge.broker.deadlines.arm(record.id, now_ms() + 300)
            result = await c.result(created["id"], wait=10)
            assert result is not None and result.reason == "expired"
            await until(gw.statuses)
