"""The composed bridge across starts and stops: pending questions kept, edits claimed by a dead
process made, tiers checked against the adapters."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.model.ids import QuestionId
from bridge.runtime.config import ConfigError
from bridge.store import SqliteStore, now_ms
from tests.adapters.webhook.support import post_reply
from tests.bridge.support import reach_config
from tests.fakes.gateway import gateway
from tests.harness import WEBHOOK_SECRET, make_config, running, until
from tests.samples import DEPLOY


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


def test_a_tier_surface_needs_its_adapter(tmp_path: Path) -> None:
    from bridge.server.composition import Bridge
    from tests.harness import base_env

    config = reach_config(tmp_path, "http://127.0.0.1:9/x", escalation=[
        {"after": 60, "surfaces": ["slack:C1"]}])
    with pytest.raises(ConfigError, match=r"'slack:C1' in escalation\[0\].surfaces"):
        Bridge.build(config, base_env())
