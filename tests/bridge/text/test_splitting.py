"""The one splitter: parts within the limit, cut at lines, nothing lost, reordered or empty."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge import (
    AgentName,
    Prompt,
    PromptQuestion,
    QuestionId,
    SessionKey,
    split_escaped,
    split_text,
    status_room,
)

PIECES = st.sampled_from(["a", "word", " ", "\n", "\n\n", "é", "e\u0301", "🇮🇩", "👩\u200d💻",
                          "x" * 40, "🇯🇵🇮🇩"])
TEXTS = st.lists(st.one_of(PIECES, st.text(max_size=30)), max_size=40).map("".join)


def kept(parts: list[str], text: str) -> bool:
    """`text` is the parts in order, with only newlines between and around them."""
    pattern = r"\n*" + r"\n*".join(re.escape(p) for p in parts) + r"\n*"
    return re.fullmatch(pattern, text, re.S) is not None


@given(TEXTS, st.integers(min_value=4, max_value=60), st.integers(min_value=0, max_value=3))
def test_parts_are_the_text_within_the_limit(text: str, limit: int, room: int) -> None:
    parts = split_text(text, limit, last_room=room)
    assert kept(parts, text)
    assert all(0 < len(p) <= limit for p in parts)
    assert all(not p.startswith("\n") and not p.endswith("\n") for p in parts)
    if parts:
        assert len(parts[-1]) + room <= limit
    if "\n" not in text:
        assert "".join(parts) == text


def test_short_text_is_one_part_and_blank_text_none() -> None:
    assert split_text("Deploy?\n1) Staging", 100) == ["Deploy?\n1) Staging"]
    assert split_text("", 10) == [] and split_text("\n\n", 10) == []


def test_lines_stay_whole_when_they_fit() -> None:
    text = "\n".join(f"line {n} " + "x" * 20 for n in range(10))
    parts = split_text(text, 70)
    assert all(line in parts[n // 2].split("\n") for n, line in enumerate(text.split("\n")))
    assert len(parts) == 5


def test_a_long_line_is_cut_after_a_space() -> None:
    assert split_text("aaaa bbbb cccc", 10) == ["aaaa bbbb ", "cccc"]


def test_a_long_word_is_cut_between_graphemes() -> None:
    flags = "🇮🇩" * 5  # ten code points, five flags
    assert split_text(flags, 5) == ["🇮🇩" * 2, "🇮🇩" * 2, "🇮🇩"]
    accents = "e\u0301" * 4
    assert split_text(accents, 3) == ["e\u0301", "e\u0301", "e\u0301", "e\u0301"]


def test_the_last_part_keeps_room_for_a_status_line() -> None:
    parts = split_text("a" * 8 + "\n" + "b" * 8, 10, last_room=4)
    assert parts[0] == "a" * 8 and all(len(p) <= 6 for p in parts[1:])
    assert "".join(parts[1:]) == "b" * 8


def test_status_room_counts_every_label() -> None:
    question = PromptQuestion("env", "Env", "Where?", (("Staging", None), ("Production", "p")),
                              multi_select=True)
    prompt = Prompt(QuestionId("q_1"), AgentName("a"), SessionKey("s"), (question,),
                    datetime.now(UTC), "text", "Env", "Where?", "Expires soon.")
    assert status_room(prompt) > len("\n\n**Answered: Staging, Production (elsewhere)**")


def test_an_impossible_limit_is_refused() -> None:
    with pytest.raises(ValueError):
        split_text("abc", 0)
    with pytest.raises(ValueError):
        split_text("abc", 5, last_room=5)


@given(TEXTS, st.integers(min_value=10, max_value=60))
def test_escaped_parts_fit_once_escaped(text: str, limit: int) -> None:
    def escape(t: str) -> str:
        return t.replace("&", "&amp;").replace("<", "&lt;")

    parts = split_escaped(text.replace("\n", "&<"), limit, escape, last_room=2)
    assert all(0 < len(p) <= limit for p in parts)
    assert "".join(parts) == escape(text.replace("\n", "&<"))
    if parts:
        assert len(parts[-1]) + 2 <= limit
