"""Restart, deadlines and graceful stop: pending questions outlive the process."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bridge.model.ids import QuestionId
from bridge.store import SqliteStore, now_ms
from tests.adapters.webhook.support import DEPLOY, gateway_config, post_reply
from tests.fakes.gateway import gateway
from tests.harness import WEBHOOK_SECRET, make_config, running, until


async def test_restart_keeps_pending_question_with_its_deadline_and_it_is_answerable(
    tmp_path: Path,
) -> None:
    config = make_config(tmp_path)
    async with running(config) as r, r.client() as c:
        created = await c.create(DEPLOY)
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        before = await c.question(created["id"])
    async with running(config) as r, r.client() as c, r.http() as http:
        after = await c.question(created["id"])
        assert after["status"] == "pending"
        assert after["expiresAt"] == before["expiresAt"] == created["expiresAt"]
        assert (await post_reply(http, "2")).json()["accepted"] is True
        result = await c.result(created["id"], wait=5)
        assert result is not None and result.answer_map() == {"deploy_target": ["Production"]}


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


async def test_graceful_stop_leaves_questions_pending(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    async with running(config) as r, r.client() as c:
        created = await c.create(DEPLOY)
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
    store = SqliteStore(config.store_path)
    await store.open()
    record = await store.get_question(QuestionId(created["id"]))
    await store.close()
    assert record is not None and record.pending


async def test_answer_and_cancel_racing_end_in_one_state(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as c, r.http() as http:
        for _ in range(5):
            created = await c.create(DEPLOY)
            await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
            reply, cancel = await asyncio.gather(post_reply(http, "1"), c.cancel(created["id"]))
            final = await c.result(created["id"])
            assert final is not None
            if reply.json()["accepted"]:
                assert final.status == "answered" and cancel.status == "answered"
            else:
                assert final.reason == "cancelled" and cancel.reason == "cancelled"


async def test_an_edit_claimed_by_a_process_that_died_is_made_at_the_next_start(
        tmp_path: Path) -> None:
    from bridge.model.contract import AskResult
    from bridge.model.ids import SurfaceId
    from bridge.store import Resolution

    async with gateway(WEBHOOK_SECRET) as gw:
        config = make_config(tmp_path, webhooks={"sms": {"secret_env": "HOOK_SECRET",
                                                         "url": gw.url}})
        async with running(config) as r, r.client() as client:
            qid = QuestionId((await client.create(DEPLOY))["id"])
            await until(gw.prompts)
        store = SqliteStore(config.store_path)  # the dead process's last moments, by hand:
        await store.open()
        await store.resolve(qid, Resolution(AskResult.no_answer("cancelled"), "Cancelled",
                                            now_ms()))
        assert await store.claim_finalization(qid, SurfaceId("webhook:sms:+100"), 60_000)
        await store.close()  # … and no edit was made
        assert gw.statuses() == []
        async with running(config):
            status = (await until(gw.statuses))[0]
        assert status["questionId"] == qid and status["text"].endswith("Cancelled")
