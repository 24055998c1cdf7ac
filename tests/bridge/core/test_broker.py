"""The broker on its own: ask, deliver, wait, cancel, expire, one pending ask per session."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bridge import QuestionId, TextReceived
from bridge.model.errors import Conflict, Forbidden, NotFound
from tests.adapters.webhook.support import post_reply
from tests.bridge.support import PERSON, SMS, Core, request, started
from tests.fakes.gateway import gateway
from tests.harness import WEBHOOK_SECRET, make_config, running, until
from tests.samples import DEPLOY


async def test_an_ask_is_delivered_and_a_text_answer_resolves_it(core: Core) -> None:
    record = await core.broker.ask("assistant", "main", request(DEPLOY))
    assert record.pending and record.session == "main"
    prompt = (await until(core.gateway.prompts))[0]
    assert prompt["questionId"] == record.id and "2) Production" in prompt["text"]
    await until(lambda: core.delivered(record.id))

    reply = await core.inbox.text_received(TextReceived(SMS, PERSON, "2", authorized=True))

    assert reply.accepted and reply.ended and reply.question_id == record.id
    ended = await core.broker.wait(record.id, timeout=5)
    assert ended.status == "answered" and ended.result is not None
    assert ended.result.answer_map() == {"deploy_target": ["Production"]}
    assert ended.answered_by is not None and ended.answered_by.surface == SMS
    status = (await until(core.gateway.statuses))[0]
    assert status["questionId"] == record.id and status["text"] == "Deploy: Answered: Production"


async def test_a_second_pending_ask_in_the_same_session_is_refused(core: Core) -> None:
    first = await core.broker.ask("assistant", "main", request(DEPLOY), waiting=False)
    with pytest.raises(Conflict, match="already pending in session 'main'"):
        await core.broker.ask("assistant", "main", request(DEPLOY))
    other = await core.broker.ask("assistant", "other", request(DEPLOY), waiting=False)
    assert other.pending and other.id != first.id
    await core.broker.cancel(first.id)
    again = await core.broker.ask("assistant", "main", request(DEPLOY), waiting=False)
    assert again.pending  # once the first ended, the session may ask again


async def test_a_subagent_may_not_ask(core: Core) -> None:
    with pytest.raises(Forbidden, match="only for main sessions"):
        await core.broker.ask("helper", "main", request(DEPLOY))


async def test_cancel_ends_it_and_the_prompt_says_so(core: Core) -> None:
    record = await core.broker.ask("assistant", "main", request(DEPLOY))
    await until(lambda: core.delivered(record.id))
    cancelled = await core.broker.cancel(record.id)
    assert cancelled.status == "no_answer" and cancelled.reason == "cancelled"
    assert (await core.broker.wait(record.id, timeout=5)).reason == "cancelled"
    assert (await until(core.gateway.statuses))[0]["text"] == "Deploy: Cancelled"


async def test_cancel_after_an_answer_keeps_the_answer(core: Core) -> None:
    record = await core.broker.ask("assistant", "main", request(DEPLOY), waiting=False)
    await until(lambda: core.delivered(record.id))
    await core.inbox.text_received(TextReceived(SMS, PERSON, "canary", authorized=True))
    after = await core.broker.cancel(record.id)
    assert after.status == "answered" and after.result is not None
    assert after.result.answer_map() == {"deploy_target": ["Canary"]}


async def test_wait_hands_back_the_pending_record_when_its_time_is_up(core: Core) -> None:
    record = await core.broker.ask("assistant", "main", request(DEPLOY))
    still = await core.broker.wait(record.id, timeout=0.05)
    assert still.id == record.id and still.pending


async def test_a_deadline_passed_while_down_expires_it_at_start(tmp_path: Path) -> None:
    async with gateway(WEBHOOK_SECRET) as gw:
        async with started(tmp_path, gw) as core:
            record = await core.broker.ask("assistant", "main", request(DEPLOY), waiting=False)
            await until(lambda: core.delivered(record.id))
            core.overdue(record.id)
        async with started(tmp_path, gw) as core:
            ended = await core.broker.wait(record.id, timeout=5)
            assert ended.status == "no_answer" and ended.reason == "expired"
            assert (await until(gw.statuses))[0]["text"] == "Deploy: Expired"


async def test_get_of_an_unknown_question_says_there_is_none(core: Core) -> None:
    with pytest.raises(NotFound, match="There is no question 'q_nope'"):
        await core.broker.get(QuestionId("q_nope"))


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
