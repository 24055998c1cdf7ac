"""The core decides native taps from capabilities; selections are partial answers (pure parts)."""

from __future__ import annotations

from typing import Any

from bridge import ButtonsLayout, NativePrompt, TextLayout
from bridge.core.native_taps import ordered, selected
from bridge.core.surfaces import asked
from bridge.model.ids import AgentName, QuestionId, SessionKey
from bridge.model.prompt import Capabilities
from bridge.model.validation import parse_ask_request
from bridge.store.records import QuestionRecord
from bridge.text.rendering import build_prompt

ZONES: dict[str, Any] = {"id": "zones", "header": "Zones", "question": "Which zones?", "multiSelect": True,
         "options": [{"label": z} for z in ("North", "South", "East", "West")]}
ENV: dict[str, Any] = {"id": "env", "header": "Env", "question": "Which environment?",
       "options": [{"label": "Staging"}, {"label": "Production"}]}
ALL = Capabilities(buttons=True, edits=True, native_multi=True, native_several=True)


def record(*questions: dict[str, object]) -> QuestionRecord:
    request = parse_ask_request({"questions": list(questions)})
    return QuestionRecord(id=QuestionId("q_test"), agent=AgentName("a"), session=SessionKey("s"),
                          request=request, status="pending", created_at=0, expires_at=60_000)


def test_one_single_select_question_keeps_its_buttons_everywhere() -> None:
    for caps in (ALL, Capabilities(buttons=True), True):
        prompt = build_prompt(asked(record(ENV)), caps)
        assert isinstance(prompt.layout, ButtonsLayout) and prompt.layout.kind == "buttons"
        assert [b.label for b in prompt.layout.buttons] == ["Staging", "Production", "Other…", "Skip"]


def test_native_all_gives_multiselect_and_several_questions_taps() -> None:
    prompt = build_prompt(asked(record(ENV, ZONES)), ALL, partial={"zones": ["South", "North"], "env": ["x"]})
    assert isinstance(prompt.layout, NativePrompt) and prompt.layout.kind == "native"
    env, zones = prompt.layout.questions
    assert zones.multi_select and zones.chosen == (0, 1) and not zones.free_text
    assert env.chosen == () and env.free_text and env.answered
    assert prompt.layout.controls.submit == "Submit" and prompt.layout.controls.done == "Done"
    assert "1) Staging" in prompt.text, "the numbered text is always there for text replies"


def test_native_single_and_text_surfaces_get_numbered_text() -> None:
    single = Capabilities(buttons=True, edits=True)  # what `native = "single"` declares
    for caps in (single, Capabilities(), False):
        for questions in ((ZONES,), (ENV, ZONES), (ENV, ENV | {"id": "env2"})):
            prompt = build_prompt(asked(record(*questions)), caps)
            assert prompt.layout == TextLayout()


def test_several_single_selects_need_only_native_several() -> None:
    caps = Capabilities(buttons=True, native_several=True)
    assert build_prompt(asked(record(ENV, ENV | {"id": "env2"})), caps).layout.kind == "native"
    assert build_prompt(asked(record(ENV, ZONES)), caps).layout.kind == "text"  # no toggles here


def test_toggles_flip_and_keep_option_order() -> None:
    zones = parse_ask_request({"questions": [ZONES]}).questions[0]
    after = selected(zones, [], (3,), toggle=True)
    after = selected(zones, after, (0,), toggle=True)
    assert after == ["North", "West"]
    assert selected(zones, after, (3,), toggle=True) == ["North"]
    assert selected(zones, ["my own words"], (1,), toggle=True) == ["South"]
    assert selected(zones, after, (2, 1), toggle=False) == ["South", "East"]
    assert selected(zones, after, (), toggle=False) == []


def test_single_select_keeps_one_choice() -> None:
    env = parse_ask_request({"questions": [ENV]}).questions[0]
    assert selected(env, ["Staging"], (1,), toggle=True) == ["Production"]
    assert selected(env, [], (0, 1), toggle=False) == ["Production"]


def test_ordered_puts_labels_first_then_own_words() -> None:
    zones = parse_ask_request({"questions": [ZONES]}).questions[0]
    assert ordered(zones, [" mars ", "West", "North", "West", ""]) == ["North", "West", "mars"]
