"""Native prompts on Telegram: toggles, a question-by-question walk, and their callback codes (pure).

Callback data is `ab:<question_id>:<code>` and never carries a label: `t<step>.<option>` taps an
option, `g<step>` shows a step (Back/Next), `o<step>` asks for own words, `d` is Done; Skip is the
single-question `s`. The step shown lives in the keyboard itself, so a restart loses nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from adapters.telegram.ids import CALLBACK_PREFIX, callback_data
from adapters.telegram.keyboards import Button, Keyboard, button, inline_keyboard
from bridge import NativePrompt, NativeQuestion, Prompt, QuestionId, tr

_NATIVE = re.compile(rf"^{CALLBACK_PREFIX}:(q_[a-z0-9]{{1,40}}):(?:([tgo])(\d)(?:\.(\d))?|(d))$")
_KINDS: dict[str, Literal["toggle", "go", "other"]] = {"t": "toggle", "g": "go", "o": "other"}
ON, OFF, PICKED = "☑", "☐", "✓"


@dataclass(frozen=True, slots=True)
class NativeTap:
    """A press on a native keyboard: which question (step) and what it asks for."""

    question_id: QuestionId
    kind: Literal["toggle", "go", "other", "done"]
    step: int = 0
    option: int = 0


def parse(data: str) -> NativeTap | None:
    """`ab:q_…:t1.2` → toggle option 2 of question 1; None when it is not a native code."""
    match = _NATIVE.match(data)
    if match is None:
        return None
    question_id = QuestionId(match.group(1))
    if match.group(5):
        return NativeTap(question_id, "done")
    return NativeTap(question_id, _KINDS[match.group(2)], int(match.group(3)),
                     int(match.group(4) or 0))


def _data(prompt: Prompt, code: str) -> str:
    return callback_data(prompt.question_id, code)


def _caption(question: NativeQuestion, index: int, label: str) -> str:
    on = index in question.chosen
    if question.multi_select:
        return f"{ON if on else OFF} {label}"
    return f"{PICKED} {label}" if on else label


def keyboard(prompt: Prompt, step: int) -> Keyboard:
    """One question's options as toggles (multiSelect) or choices; then the walk and controls."""
    native = _native(prompt)
    step = max(0, min(step, len(native.questions) - 1))
    question, controls = native.questions[step], native.controls
    rows = [[button(_caption(question, b.action, b.label), _data(prompt, f"t{step}.{b.action}"))]
            for b in question.options if isinstance(b.action, int)]
    walk: list[Button] = []
    if step > 0:
        walk.append(button(f"‹ {controls.back}", _data(prompt, f"g{step - 1}")))
    if step < len(native.questions) - 1:
        walk.append(button(f"{controls.next} ›", _data(prompt, f"g{step + 1}")))
    else:
        walk.append(button(controls.done, _data(prompt, "d")))
    rows.append(walk)
    rows.append([button(controls.other, _data(prompt, f"o{step}")),
                 button(controls.skip, callback_data(prompt.question_id, "skip"))])
    return inline_keyboard(rows)


def _native(prompt: Prompt) -> NativePrompt:
    if not isinstance(prompt.layout, NativePrompt):
        raise ValueError(f"a native keyboard needs a native prompt, not {prompt.layout.kind}")
    return prompt.layout


def _so_far(question: NativeQuestion, chosen_word: str) -> str:
    if question.free_text:
        return chosen_word
    labels = [b.label for b in question.options if b.action in question.chosen]
    return ", ".join(labels) if labels else "—"


def text(prompt: Prompt, step: int) -> str:
    """The message above the keyboard: `2/3`, the question shown, and every answer so far
    (one question at most: well within Telegram's limit, so a tap's edit always fits)."""
    native = _native(prompt)
    step = max(0, min(step, len(native.questions) - 1))
    question = native.questions[step]
    several = len(native.questions) > 1
    lines = [f"{step + 1}/{len(native.questions)} {question.header}" if several
             else question.header, question.question]
    notes = [o for o in prompt.questions[step].options if o[1]]
    lines += [f"• {label} — {note}" for label, note in notes]
    if question.multi_select:
        lines += ["", tr(prompt.locale, "Choose one or more, then {done}.",
                         done=native.controls.done)]
    if several:
        lines += [""] + [f"{q.header}: {_so_far(q, native.controls.chosen)}"
                         for q in native.questions]
    lines += ["", prompt.expiry]
    return "\n".join(lines)


def after_tap(prompt: Prompt, tap: NativeTap) -> int:
    """The step to show after an accepted tap: a single choice moves on to the next question."""
    native = _native(prompt)
    last = len(native.questions) - 1
    if tap.kind == "toggle" and not native.questions[tap.step].multi_select:
        return min(tap.step + 1, last)
    return min(tap.step, last)
