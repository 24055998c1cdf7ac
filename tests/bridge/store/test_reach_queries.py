"""Messages an approval's edit replaced, on every backend: the prompt and reminders that showed
the old arguments keep their question and say which payload they showed; the new ones do not."""

from __future__ import annotations

from bridge.model.ids import MessageRef, QuestionId, SurfaceId
from bridge.store import Store
from tests.bridge.store.support import SURFACES, record

Q1 = QuestionId("q1")
TG, WEB = SurfaceId("telegram:1"), SurfaceId("web")


async def _shown(store: Store, surface: SurfaceId, *refs: str) -> list[str | None]:
    return [await store.replaced_shown(surface, MessageRef(ref)) for ref in refs]


async def test_an_edit_marks_the_old_prompt_and_its_reminders_with_what_they_showed(
        store: Store) -> None:
    await store.create_question(record("q1"), SURFACES)
    await store.set_delivery(Q1, TG, "delivered", MessageRef("1:55"))
    for ref in ("1:56", "1:57"):
        await store.note_reminder(Q1, TG, MessageRef(ref))
    await store.set_delivery(Q1, WEB, "delivered", MessageRef("q1"))  # the web's ref: its id
    await store.note_reminder(Q1, WEB, MessageRef("q1"))
    assert await _shown(store, TG, "1:55", "1:56") == [None, None]

    assert await store.note_replaced(Q1, TG, MessageRef("1:55"), "aaa")
    assert await store.note_replaced(Q1, WEB, MessageRef("q1"), "aaa")
    assert await _shown(store, TG, "1:55", "1:56", "1:57") == ["aaa"] * 3
    # The prompt found again (an edit's reshow and the prompt's own late record both saw it):
    # marked already, so this caller does not show it a second time.
    assert not await store.note_replaced(Q1, TG, MessageRef("1:55"), "aaa")
    assert not await store.note_replaced(Q1, WEB, MessageRef("q1"), "aaa"), "the id's too"
    assert await _shown(store, WEB, "q1") == [None], "shown again under the same id: current"
    for ref in ("1:55", "1:56"):  # a reply to one still finds its question
        found = await store.find_delivery(TG, MessageRef(ref))
        assert found is not None and found.question_id == Q1

    await store.set_delivery(Q1, TG, "delivered", MessageRef("1:60"))  # shown again
    await store.note_reminder(Q1, TG, MessageRef("1:61"))
    assert await _shown(store, TG, "1:60", "1:61") == [None, None]
    await store.note_replaced(Q1, TG, MessageRef("1:60"), "bbb")  # a second edit
    assert await store.note_replaced(Q1, WEB, MessageRef("q1"), "bbb"), "a new claim per edit"
    assert await _shown(store, WEB, "q1") == [None]
    assert await _shown(store, TG, "1:55", "1:56", "1:60", "1:61") == ["aaa", "aaa", "bbb", "bbb"]
    assert await _shown(store, SurfaceId("telegram:2"), "1:55") == [None]


async def test_a_reminder_keeps_the_arguments_it_showed_even_when_recorded_after_the_edit(
        store: Store) -> None:
    await store.create_question(record("q1"), SURFACES)
    await store.set_delivery(Q1, TG, "delivered", MessageRef("1:55"))
    await store.note_replaced(Q1, TG, MessageRef("1:55"), "aaa")  # the edit's marks first
    await store.note_reminder(Q1, TG, MessageRef("1:56"), "aaa")  # a reminder sent before it
    await store.note_reminder(Q1, TG, MessageRef("1:57"), "bbb")  # one of the new arguments
    await store.note_reminder(Q1, WEB, MessageRef("q1"), "aaa")  # the web's id: always current
    assert await _shown(store, TG, "1:55", "1:56", "1:57") == ["aaa", "aaa", "bbb"]
    assert await _shown(store, WEB, "q1") == [None]
