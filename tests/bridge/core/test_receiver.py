"""The receiver: taps, text and forms from adapters, checked and turned into resolutions."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bridge import (
    AnswerSubmitted,
    ButtonPressed,
    QuestionId,
    StepChanged,
    TextReceived,
    UserRef,
)
from bridge.store.records import QuestionRecord
from tests.adapters.webhook.support import post_reply
from tests.bridge.support import PERSON, SMS, Core, request
from tests.harness import make_config, running, until
from tests.samples import BOTH, DEPLOY

STRANGER = UserRef("+999")


async def asked(core: Core, raw: dict[str, Any] = DEPLOY, session: str = "main"
                ) -> QuestionRecord:
    """Ask, and return once the prompt is delivered and recorded (so replies bind to it)."""
    record = await core.broker.ask("assistant", session, request(raw), waiting=False)
    await until(lambda: core.delivered(record.id))
    return record


def text(words: str, reply_to: str | None = None) -> TextReceived:
    return TextReceived(SMS, PERSON, words, authorized=True, reply_to=reply_to)


async def test_a_reply_by_number_answers_with_the_label(core: Core) -> None:
    record = await asked(core)
    reply = await core.inbox.text_received(text("2"))
    assert reply.handled and reply.accepted and reply.ended
    assert reply.text == "Thanks, recorded: Production."
    result = (await core.broker.wait(record.id, timeout=5)).result
    assert result is not None and result.answer_map() == {"deploy_target": ["Production"]}


async def test_a_button_press_by_someone_else_is_refused(core: Core) -> None:
    record = await asked(core)
    refused = await core.inbox.button_pressed(
        ButtonPressed(SMS, STRANGER, record.id, 1, authorized=False))
    assert refused.handled and not refused.accepted and not refused.ended
    assert refused.text == "Sorry, only the person this question is for can answer it."
    assert (await core.broker.get(record.id)).pending
    pressed = await core.inbox.button_pressed(
        ButtonPressed(SMS, PERSON, record.id, 2, authorized=True))
    assert pressed.accepted and pressed.ended
    result = (await core.broker.wait(record.id, timeout=5)).result
    assert result is not None and result.answer_map() == {"deploy_target": ["Canary"]}


async def test_text_from_someone_else_is_refused(core: Core) -> None:
    record = await asked(core)
    refused = await core.inbox.text_received(TextReceived(SMS, STRANGER, "1", authorized=False))
    assert refused.handled and not refused.accepted
    assert refused.text == "Sorry, only the person this question is for can answer it."
    assert (await core.broker.get(record.id)).pending


async def test_skip_ends_it_with_no_answer(core: Core) -> None:
    by_text = await asked(core, BOTH)
    reply = await core.inbox.text_received(text("/skip"))
    assert reply.accepted and reply.ended and reply.text == "Skipped."
    ended = await core.broker.wait(by_text.id, timeout=5)
    assert ended.status == "no_answer" and ended.reason == "skipped"

    by_button = await asked(core, session="two")
    pressed = await core.inbox.button_pressed(
        ButtonPressed(SMS, PERSON, by_button.id, "skip", authorized=True))
    assert pressed.accepted and pressed.ended
    assert (await core.broker.wait(by_button.id, timeout=5)).reason == "skipped"


async def test_an_answer_after_the_end_is_told_it_ended(core: Core) -> None:
    record = await asked(core)
    await core.broker.cancel(record.id)
    late_tap = await core.inbox.button_pressed(
        ButtonPressed(SMS, PERSON, record.id, 0, authorized=True))
    assert late_tap.handled and late_tap.ended and not late_tap.accepted
    assert late_tap.text == "This question has already ended."
    late_reply = await core.inbox.text_received(text("1", reply_to=record.id))
    assert late_reply.ended and late_reply.text == "This question has already ended."
    late_form = await core.inbox.answers_submitted(
        AnswerSubmitted(SMS, PERSON, record.id, {"deploy_target": ["Canary"]}))
    assert late_form.ended and not late_form.accepted
    assert (await core.broker.get(record.id)).reason == "cancelled"


async def test_partial_answers_on_several_questions_combine(core: Core) -> None:
    record = await asked(core, BOTH)
    first = await core.inbox.text_received(text("1: 2"))
    assert first.accepted and not first.ended
    assert first.text is not None and "Still needed: 2. Checks" in first.text
    assert (await core.broker.get(record.id)).pending
    second = await core.inbox.text_received(text("1,3"))
    assert second.accepted and second.ended
    result = (await core.broker.wait(record.id, timeout=5)).result
    assert result is not None and result.answer_map() == {
        "deploy_target": ["Production"], "checks": ["Lint", "Build"]}


async def test_a_reply_that_cannot_be_parsed_stays_pending_and_says_what_to_do(core: Core) -> None:
    record = await asked(core)
    reply = await core.inbox.text_received(text("7"))
    assert reply.handled and not reply.accepted and not reply.ended
    assert reply.text is not None and "1 to 3" in reply.text
    assert (await core.broker.get(record.id)).pending
    assert (await core.inbox.text_received(text("canary"))).ended


async def test_a_form_answers_every_question_or_says_which_is_missing(core: Core) -> None:
    record = await asked(core, BOTH)
    missing = await core.inbox.answers_submitted(
        AnswerSubmitted(SMS, PERSON, record.id, {"deploy_target": ["Production"]}))
    assert missing.handled and not missing.accepted
    assert missing.text == "Checks: choose an option or write your own answer."
    whole = await core.inbox.answers_submitted(AnswerSubmitted(
        SMS, PERSON, record.id, {"deploy_target": ["Production"], "checks": ["Test", "Lint"]}))
    assert whole.accepted and whole.ended
    result = (await core.broker.wait(record.id, timeout=5)).result
    assert result is not None and result.answer_map() == {
        "deploy_target": ["Production"], "checks": ["Lint", "Test"]}  # in the options' order


async def test_text_with_two_questions_waiting_asks_which_one(core: Core) -> None:
    one = await asked(core, session="one")
    two = await asked(core, session="two")
    reply = await core.inbox.text_received(text("1"))
    assert reply.handled and not reply.accepted and reply.text is not None
    assert "Reply to the prompt you mean" in reply.text
    bound = await core.inbox.text_received(text("3", reply_to=two.id))
    assert bound.accepted and bound.question_id == two.id
    assert (await core.broker.get(one.id)).pending


async def test_text_with_nothing_pending_is_left_alone_and_an_unknown_tap_told_it_ended(
    core: Core,
) -> None:
    reply = await core.inbox.text_received(text("hello there"))
    assert not reply.handled and not reply.accepted
    unknown = await core.inbox.button_pressed(
        ButtonPressed(SMS, PERSON, QuestionId("q_nope"), 0, authorized=True))
    assert unknown.ended and unknown.text == "This question has already ended."


async def test_a_step_change_shows_the_prompt_only_to_an_answerer_while_open(core: Core) -> None:
    record = await asked(core, BOTH)
    shown = await core.inbox.step_changed(StepChanged(SMS, PERSON, record.id, 1, authorized=True))
    assert shown.accepted and shown.prompt is not None and shown.prompt.question_id == record.id
    refused = await core.inbox.step_changed(
        StepChanged(SMS, STRANGER, record.id, 1, authorized=False))
    assert not refused.accepted and refused.prompt is None
    assert refused.text == "Sorry, only the person this question is for can answer it."
    await core.broker.cancel(record.id)
    late = await core.inbox.step_changed(StepChanged(SMS, PERSON, record.id, 0, authorized=True))
    assert late.ended and late.text == "This question has already ended."


async def test_a_text_surface_refuses_1_2_and_keeps_the_question_pending(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as client, r.http() as http:
        ask = asyncio.create_task(client.ask(DEPLOY))
        pending = await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        refused = (await post_reply(http, "1,2")).json()
        assert refused["accepted"] is False and "Choose one" in refused["reply"]
        record = await r.bridge.store.get_question(pending[0].id)
        assert record is not None and record.pending
        assert (await post_reply(http, "2")).json()["accepted"] is True
        assert (await asyncio.wait_for(ask, 10)).answer_map() == {"deploy_target": ["Production"]}
