"""The pure parts: callback data, who may answer, which texts reach the broker, message text."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime

from telegram import Update

from adapters.telegram import ids, inbound, render
from adapters.telegram.bindings import SWEEP_SECONDS, Bindings
from adapters.telegram.order import InOrderPerPrompt, order_key
from bridge import (
    OTHER_BUTTON,
    SKIP_BUTTON,
    AgentName,
    Button,
    ButtonsLayout,
    Finalization,
    Prompt,
    PromptQuestion,
    QuestionId,
    SessionKey,
    TextLayout,
)
from tests.fakes.telegram import payload

DM_CHAT = 4242

QID = QuestionId("q_" + "z" * 16)
ANSWERERS = [42]


def prompt(buttons: bool = True) -> Prompt:
    labels = ("A" * 64, "*B* _c_ [d](e) <b>")
    return Prompt(
        question_id=QID, agent=AgentName("a"), session=SessionKey("main"),
        questions=(PromptQuestion("pick", "Pick", "Which one?",
                                  tuple((label, None) for label in labels), False),),
        expires_at=datetime(2030, 1, 1, 12, 30, tzinfo=UTC), text="Pick: Which one?\n1) …",
        title="Pick", body="Which one?", expiry="Expires at 12:30 PM UTC (in 5 min).",
        layout=ButtonsLayout((Button(labels[0], 0), Button(labels[1], 1),
                              Button(OTHER_BUTTON, "other"), Button(SKIP_BUTTON, "skip")))
        if buttons else TextLayout())


def test_callback_data_fits_and_round_trips() -> None:
    markup = render.keyboard(prompt())
    assert markup is not None
    datas = [b["callback_data"] for row in markup["inline_keyboard"] for b in row]
    assert datas == [f"ab:{QID}:0", f"ab:{QID}:1", f"ab:{QID}:o", f"ab:{QID}:s"]
    assert all(isinstance(d, str) and len(d.encode()) <= 64 for d in datas)
    parsed = [ids.parse_callback(str(d)) for d in datas]
    assert [(c.question_id, c.kind, c.action) for c in parsed if c is not None] == [
        (QID, "option", 0), (QID, "option", 1), (QID, "other", "other"), (QID, "skip", "skip")]


def test_one_grammar_reads_every_native_code() -> None:
    read = {code: ids.parse_callback(f"ab:{QID}:{code}") for code in ("t1.2", "g0", "o2", "d")}
    assert {code: (c.kind, c.step, c.option, c.native) for code, c in read.items() if c} == {
        "t1.2": ("toggle", 1, 2, True), "g0": ("go", 0, 0, True), "o2": ("own", 2, 0, True),
        "d": ("done", 0, 0, True)}


def test_foreign_or_broken_callback_data_is_not_ours() -> None:
    for data in ("", "ab:", "ab:q_x:9x", "other:q_abc:1", f"ab:{QID}:other", "ab:Q_ABC:1"):
        assert ids.parse_callback(data) is None


def test_plain_text_and_keyboard_choice() -> None:
    assert render.keyboard(prompt(buttons=False)) is None
    assert render.prompt(prompt(buttons=False)) == [("Pick: Which one?\n1) …", None)]
    [(text, markup)] = render.prompt(prompt())
    assert text == "Pick\nWhich one?\n\nExpires at 12:30 PM UTC (in 5 min)." and markup is not None


def test_a_long_prompt_is_split_and_its_last_part_finalized_whole() -> None:
    lines = [f"{n}) " + "word " * 150 for n in range(20)]
    long = replace(prompt(buttons=False), text="\n".join(lines))
    messages = render.prompt(long)
    assert len(messages) > 1 and all(len(text) <= render.MAX_TEXT for text, _ in messages)
    assert "\n".join(text for text, _ in messages) == long.text
    final = render.final(Finalization("answered", "Answered: " + "B" * 64, long))
    assert len(final) <= render.MAX_TEXT
    assert final == f"{messages[-1][0]}\n\nAnswered: {'B' * 64}"


def where(chat_id: int, chat_type: str) -> inbound.Where:
    return inbound.Where(chat_id=chat_id, chat_type=chat_type)


def test_who_may_answer() -> None:
    assert inbound.may_answer(where(7, "private"), 7, [])
    assert not inbound.may_answer(where(-5, "supergroup"), 7, [])
    assert inbound.may_answer(where(-5, "supergroup"), 42, ANSWERERS)
    assert not inbound.may_answer(None, 7, [])


def said(chat: inbound.Where, user: int, text: str, bot: bool = False) -> inbound.Said:
    return inbound.Said(where=chat, user_id=user, user_is_bot=bot, message_id=1, text=text)


def test_which_texts_reach_the_broker() -> None:
    group = where(-5, "supergroup")
    assert inbound.text_event(said(group, 7, "2"), ANSWERERS, None) is None
    assert inbound.text_event(said(group, 42, "2", bot=True), ANSWERERS, None) is None
    event = inbound.text_event(said(group, 42, " /skip@askbridge_bot "), ANSWERERS, "q_1")
    assert event is not None
    assert (event.surface, event.user, event.text, event.authorized, event.reply_to) == (
        "telegram:-5", "42", "/skip", True, "q_1")


def test_surfaces_and_refs() -> None:
    assert ids.parse_target("-100123/7") == (-100123, 7)
    assert ids.parse_target("42") == (42, None)
    assert ids.surface_for(-100123, 7) == "telegram:-100123/7"
    assert ids.parse_ref(ids.message_ref(-100123, 55)) == (-100123, 55)


def _tap(data: str, chat: int = 42, message_id: int = 1) -> Update:
    update = payload("update_callback_query")
    update["callback_query"].update({"data": data, "from": PERSON, "message": {
        "message_id": message_id, "date": 0, "chat": {"id": chat, "type": "private"}}})
    return Update.de_json(update, None)


def _text(chat: int) -> Update:
    update = payload("update_message")
    update["message"].update({"message_id": 2, "date": 0, "text": "2", "from": PERSON,
                              "chat": {"id": chat, "type": "group", "title": "G"}})
    return Update.de_json(update, None)


PERSON = {"id": 42, "is_bot": False, "first_name": "Person"}


def test_taps_keep_their_place_behind_their_prompt_and_messages_behind_their_chat() -> None:
    assert order_key(_tap(f"ab:{QID}:1")) == order_key(_tap(f"ab:{QID}:t0.1")) == "tap:42:1"
    assert order_key(_tap("not ours", chat=7, message_id=3)) == "tap:7:3"
    assert order_key(_text(-100)) == "chat:-100"


async def test_taps_on_one_prompt_run_in_order_and_others_beside_them() -> None:
    processor = InOrderPerPrompt()
    ran: list[str] = []
    gate = asyncio.Event()

    async def handle(name: str, wait: bool = False) -> None:
        ran.append(f"{name} began")
        if wait:
            await gate.wait()
        ran.append(f"{name} ended")

    other = QuestionId("q_" + "y" * 16)
    first = asyncio.create_task(processor.process_update(_tap(f"ab:{QID}:1"),
                                                         handle("first", wait=True)))
    second = asyncio.create_task(processor.process_update(_tap(f"ab:{QID}:2"),
                                                          handle("second")))
    beside = asyncio.create_task(processor.process_update(_tap(f"ab:{other}:1", message_id=2),
                                                          handle("beside")))
    await beside
    assert ran == ["first began", "beside began", "beside ended"]  # second waits for first
    gate.set()
    await asyncio.gather(first, second)
    assert ran[3:] == ["first ended", "second began", "second ended"]
    assert not processor._lines  # nothing kept once the updates are done


class _State:
    """An adapter's key/value state, as the store keeps it."""

    def __init__(self) -> None:
        self.kept: dict[str, str] = {}

    async def get(self, key: str) -> str | None:
        return self.kept.get(key)

    async def put(self, key: str, value: str) -> None:
        self.kept[key] = value

    async def delete(self, key: str) -> bool:
        return self.kept.pop(key, None) is not None

    async def items(self, prefix: str = "") -> list[tuple[str, str]]:
        return sorted((k, v) for k, v in self.kept.items() if k.startswith(prefix))


class _Questions:
    """The read side: `pending` questions have a prompt; `ended` ones a record, no prompt."""

    def __init__(self, pending: set[str], ended: set[str]) -> None:
        self.pending, self.ended = pending, ended

    async def prompt_for(self, question_id: QuestionId, surface: object = None) -> object:
        return object() if question_id in self.pending else None

    async def question_view(self, question_id: QuestionId) -> dict[str, str] | None:
        known = question_id in self.pending or question_id in self.ended
        return {"id": question_id} if known else None


async def test_bindings_of_deleted_questions_leave_the_store_and_of_ended_ones_memory() -> None:
    state = _State()
    bindings = Bindings(state)
    for message, question in ((1, "q_pending"), (2, "q_ended"), (3, "q_deleted"), (4, "q_deleted")):
        await bindings.bind((DM_CHAT, message), QuestionId(question))
    questions = _Questions(pending={"q_pending"}, ended={"q_ended"})
    assert await bindings.prune(questions) == 2  # type: ignore[arg-type]
    assert sorted(state.kept.values()) == ["q_ended", "q_pending"], \
        "a late reply to an ended question is still told it ended"
    assert len(bindings) == 1, "in memory: only the pending question's"
    assert await bindings.get((DM_CHAT, 2)) == "q_ended" and await bindings.get((DM_CHAT, 3)) is None


async def test_a_sweep_runs_at_most_once_an_hour() -> None:
    bindings = Bindings(_State())
    assert bindings.sweep_due(100.0) and not bindings.sweep_due(100.0 + SWEEP_SECONDS - 1)
    assert bindings.sweep_due(100.0 + SWEEP_SECONDS)
