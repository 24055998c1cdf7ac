"""Two replicas on one PostgreSQL database share the VAPID key and the subscriptions."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adapters.web.support import config, stored, subscribed
from tests.fakes.push import fake_push_service
from tests.harness import running, until
from tests.pg import scratch_database, server_url
from tests.samples import DEPLOY

pytestmark = pytest.mark.skipif(server_url() is None, reason="ASKBRIDGE_TEST_POSTGRES_URL=off")


async def test_subscribe_on_one_replica_hear_a_question_asked_on_the_other(tmp_path: Path) -> None:
    async with scratch_database() as url, fake_push_service() as service:
        settings = config(tmp_path, store={"url": url})
        async with running(settings) as a, running(settings) as b, a.http() as http_a, \
                b.http() as http_b, b.client() as agent:
            phone = service.browser("phone")
            await subscribed(a, http_a, phone)
            await subscribed(b, http_b)  # only logs in
            keys = [(await h.get("/ui/api/push/key")).json() for h in (http_a, http_b)]
            assert keys[0] == keys[1], "every replica signs with the key browsers subscribed with"
            assert await stored(b) == await stored(a) != []
            created = await agent.create(DEPLOY)
            [shown] = await until(lambda: service.delivered(phone))
            assert shown["questionId"] == created["id"]
            assert service.pushes[0].vapid_key == keys[0]["publicKey"]
