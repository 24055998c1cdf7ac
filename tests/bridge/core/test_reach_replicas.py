"""Three replicas on one PostgreSQL database: each reminder and escalation tier is sent once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.bridge.support import reach_config, sent
from tests.fakes.gateway import gateway
from tests.harness import WEBHOOK_SECRET, running, until
from tests.pg import scratch_database, server_url
from tests.samples import ask

pytestmark = pytest.mark.skipif(server_url() is None, reason="ASKBRIDGE_TEST_POSTGRES_URL=off")

OPEN_A_MINUTE = ask(timeoutSeconds=60)
"""The sample question, open long enough for its reminders and tiers to come first."""


async def test_each_reminder_and_tier_is_sent_once_among_three_replicas(tmp_path: Path) -> None:
    async with gateway(WEBHOOK_SECRET) as gw, scratch_database() as url:
        config = reach_config(tmp_path, gw.url, remind_after=[1, 2], escalation=[
            {"after": 1.5, "surfaces": ["webhook:sms:+200"]}])
        config = config.model_copy(update={"store": config.store.model_copy(
            update={"path": None, "url": url})})
        async with running(config) as a, running(config) as b, running(config) as c:
            async with a.client() as agent:
                created = await agent.create(OPEN_A_MINUTE)
                qid = created["id"]
                for r in (b, c):  # the others heard of it and armed its timers too
                    await until(lambda r=r: _armed(r, qid))
                await until(lambda: _all_sent(a, qid), timeout=15)
                await until(lambda: len(sent(gw, "reminder", "+100")) >= 2)
        # Reminder 1 reaches +100 only; reminder 2 also +200 when its tier's prompt was live by
        # then. Never twice: three replicas armed every timer, one claimed each.
        assert len(sent(gw, "reminder", "+100")) == 2
        assert len(sent(gw, "reminder", "+200")) <= 1
        assert all(p["text"].startswith("Reminder: Deploy") for p in gw.reminders())
        assert len(sent(gw, "prompt", "+200")) == 1
        assert len(sent(gw, "prompt", "+100")) == 1


def _armed(r: Any, qid: str) -> bool:
    return any(t[2].question_id == qid for t in r.bridge.broker.reach.scheduler._heap)


async def _all_sent(r: Any, qid: str) -> bool:
    return not await r.bridge.store.timers_of(qid)
