"""A blocking ask re-attaches (§2): the same questions asked again while pending in the session
are the same question, with one outcome; different ones are refused (409)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from structlog.testing import capture_logs

from tests.adapters.webhook.support import post_reply
from tests.harness import AGENT_TOKEN, make_config, running, until
from tests.samples import DEPLOY, TARGET

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}


async def test_the_same_ask_again_waits_on_the_same_question(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        with capture_logs() as said:
            first = asyncio.create_task(http.post("/v1/sessions/s/ask", json=DEPLOY,
                                                  headers=AUTH))
            pending = await until(lambda: r.bridge.store.pending_questions())
            again = asyncio.create_task(http.post("/v1/sessions/s/ask", json=DEPLOY,
                                                  headers=AUTH))
            await until(lambda: any(e["event"] == "ask_reattached" for e in said))
        other = {"questions": [{**TARGET, "question": "Which region?"}]}
        refused = await http.post("/v1/sessions/s/ask", json=other, headers=AUTH)
        assert (await post_reply(http, "canary")).json()["accepted"] is True
        answers = [(await task).json() for task in (first, again)]
        line = await r.bridge.store.timeline("assistant", "s")  # type: ignore[arg-type]
    assert refused.status_code == 409
    assert answers[0] == answers[1] and answers[0]["status"] == "answered"
    assert [q.id for q in line] == [pending[0].id]
