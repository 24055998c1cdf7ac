"""Native prompts on Telegram: toggles and a question-by-question walk (pure); their buttons'
callback codes are the grammar in ids.py."""

from __future__ import annotations

from adapters.telegram.ids import Callback, callback_data
from adapters.telegram.keyboards import Button, Keyboard, button, inline_keyboard
from bridge import NativePrompt, NativeQuestion, Prompt, tr

ON, OFF, PICKED = "☑", "☐", "✓"


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


def after_tap(prompt: Prompt, tap: Callback) -> int:
    """The step to show after an accepted tap: a single choice moves on to the next question."""
    native = _native(prompt)
    last = len(native.questions) - 1
    if tap.kind == "toggle" and not native.questions[tap.step].multi_select:
        return min(tap.step + 1, last)
    return min(tap.step, last)
