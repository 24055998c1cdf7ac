"""Prompts on their way out: turns per platform, side by side per question, queued not tasked."""

from __future__ import annotations

import asyncio
from functools import partial

from bridge import QuestionId
from bridge.core.outbound import CALLS_PER_PLATFORM, SENDERS_PER_PLATFORM
from bridge.store.records import DeliveryRecord
from tests.bridge.support import PAGER, SMS, Core, request
from tests.harness import until
from tests.samples import DEPLOY


async def test_calls_to_one_platform_take_turns_and_every_prompt_arrives(core: Core) -> None:
    core.gateway.hold = asyncio.Event()  # the gateway answers nothing until told
    records = [await core.broker.ask("assistant", f"s{i}", request(DEPLOY)) for i in range(10)]
    await until(lambda: core.gateway.in_flight == CALLS_PER_PLATFORM)
    # the gateway keeps the most calls it ever had at once: a fifth, now or later, shows below
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
