"""The broker on its own: ask, deliver, wait, cancel, expire, one pending ask per session."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

import pytest

from bridge import QuestionId, TextReceived
from bridge.core.outbound import CALLS_PER_PLATFORM, SENDERS_PER_PLATFORM
from bridge.model.errors import Conflict, Forbidden, NotFound
from bridge.store.records import DeliveryRecord
from tests.bridge.support import DEPLOY, PAGER, PERSON, SMS, Core, request, started
from tests.fakes.gateway import gateway
from tests.harness import WEBHOOK_SECRET, stays, until


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


async def test_calls_to_one_platform_take_turns_and_every_prompt_arrives(core: Core) -> None:
    core.gateway.hold = asyncio.Event()  # the gateway answers nothing until told
    records = [await core.broker.ask("assistant", f"s{i}", request(DEPLOY)) for i in range(10)]
    await until(lambda: core.gateway.in_flight == CALLS_PER_PLATFORM)
    await stays(lambda: core.gateway.in_flight == CALLS_PER_PLATFORM, 0.3)  # the rest wait

    core.gateway.hold.set()

    await until(lambda: len(core.gateway.prompts()) == len(records))
    assert core.gateway.most_in_flight == CALLS_PER_PLATFORM
    assert sorted(p["questionId"] for p in core.gateway.prompts()) == sorted(r.id for r in records)
    for record in records:
        await until(partial(core.delivered, record.id))


async def test_a_question_s_prompts_go_out_side_by_side_not_one_round_trip_after_another(
        core: Core) -> None:
    # its second prompt is started once the first is on its way, not once it was answered
    core.gateway.hold = asyncio.Event()
    record = await core.broker.ask("paged", "main", request(DEPLOY), waiting=False)
    await until(lambda: core.gateway.in_flight == 2)

    core.gateway.hold.set()

    await until(lambda: len(core.gateway.prompts()) == 2)
    assert [p["conversation"] for p in core.gateway.prompts()] == ["+100", "+200"]
    deliveries = await until(partial(delivered_both, core, record.id))
    assert [d.surface for d in deliveries] == [SMS, PAGER]


async def delivered_both(core: Core, question_id: QuestionId) -> list[DeliveryRecord] | None:
    deliveries = await core.broker.store.deliveries(question_id)
    return deliveries if all(d.state == "delivered" for d in deliveries) else None


async def test_prompts_waiting_for_a_turn_wait_in_a_line_not_as_tasks(core: Core) -> None:
    core.gateway.hold = asyncio.Event()
    before = len(asyncio.all_tasks())
    records = [await core.broker.ask("assistant", f"s{i}", request(DEPLOY), waiting=False)
               for i in range(100)]
    await until(lambda: core.gateway.in_flight == CALLS_PER_PLATFORM)
    # the senders, and the fake gateway's server tasks for the held calls (up to three each);
    # not one task per waiting prompt
    assert len(asyncio.all_tasks()) - before <= SENDERS_PER_PLATFORM + 3 * CALLS_PER_PLATFORM

    core.gateway.hold.set()

    await until(lambda: len(core.gateway.prompts()) == len(records), timeout=20)
    asked = [r.id for r in records]
    arrived = [p["questionId"] for p in core.gateway.prompts()]
    assert set(arrived[:CALLS_PER_PLATFORM]) == set(asked[:CALLS_PER_PLATFORM])  # in turn
    assert sorted(arrived) == sorted(asked)
    for record in records:
        await until(partial(core.delivered, record.id))
