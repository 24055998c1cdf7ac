"""Prompts and status lines as each surface gets them: buttons, native taps or numbered text, in
the prompt's language."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bridge import ButtonsLayout, NativePrompt, TextLayout
from bridge.core.surfaces import asked
from bridge.model.contract import AskRequest, AskResult, Question
from bridge.model.ids import AgentName, QuestionId, SessionKey
from bridge.model.prompt import Capabilities
from bridge.model.validation import parse_ask_request
from bridge.store.records import QuestionRecord
from bridge.text.rendering import build_prompt, prompt_text, status_line
from tests.samples import CHECKS, TARGET, with_options


def questions(*specs: dict[str, Any]) -> list[Question]:
    return list(AskRequest.model_validate({"questions": list(specs)}).questions)




def test_indonesian_prompt_and_status_lines() -> None:
    expires = datetime.now(UTC) + timedelta(minutes=10)
    text = prompt_text(questions(TARGET), expires, "id")
    assert "1) Staging (Recommended)" in text and "Lainnya: balas dengan jawaban" in text
    assert 'Balas "lewati" untuk melewati.' in text and "Kedaluwarsa pukul" in text
    many = prompt_text(questions(TARGET, CHECKS), expires, "id")
    assert many.startswith("2 pertanyaan:") and "(pilih satu atau lebih)" in many
    qs = questions(TARGET)
    assert status_line(AskResult.answered({"deploy_target": ["Production"]}), qs, "id") == \
        "Dijawab: Production"
    assert status_line(AskResult.answered({"deploy_target": ["my words"]}), qs, "id") == "Dijawab"
    expected = {"skipped": "Dilewati", "expired": "Kedaluwarsa", "cancelled": "Dibatalkan"}
    for reason, line in expected.items():
        assert status_line(AskResult.no_answer(reason), qs, "id") == line  # type: ignore[arg-type]


def test_native_controls_are_written_in_the_prompts_locale() -> None:
    from bridge.text.rendering import native_controls

    english = native_controls("en")
    indonesian = native_controls("id")
    assert (english.done, english.submit, english.back, english.next) == (
        "Done", "Submit", "Back", "Next")
    assert (indonesian.done, indonesian.submit, indonesian.back, indonesian.next,
            indonesian.other, indonesian.skip) == (
        "Selesai", "Kirim", "Kembali", "Berikutnya", "Lainnya…", "Lewati")


PAIR = with_options(TARGET, "Staging", "Production")
"""The single-select sample with two unadorned options."""
ZONES: dict[str, Any] = {"id": "zones", "header": "Zones", "question": "Which zones?", "multiSelect": True,
         "options": [{"label": z} for z in ("North", "South", "East", "West")]}




ALL = Capabilities(buttons=True, edits=True, native_multi=True, native_several=True)


def record(*questions: dict[str, object]) -> QuestionRecord:
    request = parse_ask_request({"questions": list(questions)})
    return QuestionRecord(id=QuestionId("q_test"), agent=AgentName("a"), session=SessionKey("s"),
                          request=request, status="pending", created_at=0, expires_at=60_000)


def test_one_single_select_question_keeps_its_buttons_everywhere() -> None:
    for caps in (ALL, Capabilities(buttons=True), True):
        prompt = build_prompt(asked(record(PAIR)), caps)
        assert isinstance(prompt.layout, ButtonsLayout) and prompt.layout.kind == "buttons"
        assert [b.label for b in prompt.layout.buttons] == ["Staging", "Production", "Other…", "Skip"]


def test_native_all_gives_multiselect_and_several_questions_taps() -> None:
    prompt = build_prompt(asked(record(PAIR, ZONES)), ALL,
                          partial={"zones": ["South", "North"], "deploy_target": ["x"]})
    assert isinstance(prompt.layout, NativePrompt) and prompt.layout.kind == "native"
    env, zones = prompt.layout.questions
    assert zones.multi_select and zones.chosen == (0, 1) and not zones.free_text
    assert env.chosen == () and env.free_text and env.answered
    assert prompt.layout.controls.submit == "Submit" and prompt.layout.controls.done == "Done"
    assert "1) Staging" in prompt.text, "the numbered text is always there for text replies"


def test_native_single_and_text_surfaces_get_numbered_text() -> None:
    single = Capabilities(buttons=True, edits=True)  # what `native = "single"` declares
    for caps in (single, Capabilities(), False):
        for questions in ((ZONES,), (PAIR, ZONES), (PAIR, PAIR | {"id": "target2"})):
            prompt = build_prompt(asked(record(*questions)), caps)
            assert prompt.layout == TextLayout()


def test_several_single_selects_need_only_native_several() -> None:
    caps = Capabilities(buttons=True, native_several=True)
    assert build_prompt(asked(record(PAIR, PAIR | {"id": "target2"})), caps).layout.kind == "native"
    assert build_prompt(asked(record(PAIR, ZONES)), caps).layout.kind == "text"  # no toggles here
