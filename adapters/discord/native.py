"""Native prompts on Discord: a string select per question and a row Submit · Other… · Skip (pure).

Custom ids are `ab:<question_id>:<code>`: `v<n>` is question n's select menu, `d` Done/Submit,
`w` opens the own-words modal, `n` is that modal, `s` Skip. No label ever goes into an id.
"""

from __future__ import annotations

from typing import Any

import discord
from discord.utils import escape_markdown

from adapters.discord.ids import custom_id
from bridge import NativePrompt, NativeQuestion, Prompt, QuestionId, caption, tr

_ACTION_ROW, _BUTTON, _SELECT = 1, 2, 3
_PRIMARY, _SECONDARY = 1, 2
OWN_WORDS_INPUT = "ab:answer:"
"""The own-words modal's inputs are `ab:answer:<n>`, one per question."""


def _native(prompt: Prompt) -> NativePrompt:
    if not isinstance(prompt.layout, NativePrompt):
        raise ValueError(f"a native layout needs a native prompt, not {prompt.layout.kind}")
    return prompt.layout



def _select(prompt: Prompt, n: int, question: NativeQuestion) -> dict[str, Any]:
    notes = dict(prompt.questions[n].options)
    options = []
    for b in question.options:
        assert isinstance(b.action, int)
        option: dict[str, Any] = {"label": caption(b.label, 100), "value": str(b.action),
                                  "default": b.action in question.chosen}
        if notes.get(b.label):
            option["description"] = caption(str(notes[b.label]), 100)
        options.append(option)
    return {"type": _SELECT, "custom_id": custom_id(prompt.question_id, f"v{n}"),
            "placeholder": caption(question.header, 150), "options": options, "min_values": 1,
            "max_values": len(options) if question.multi_select else 1}


def components(prompt: Prompt) -> list[dict[str, Any]]:
    """One row per question (its select menu), then Submit (Done), Other… and Skip."""
    native = _native(prompt)
    c = native.controls
    rows = [{"type": _ACTION_ROW, "components": [_select(prompt, n, q)]}
            for n, q in enumerate(native.questions)]
    submit = c.submit if len(native.questions) > 1 else c.done
    buttons = [(submit, "d", _PRIMARY), (c.other, "w", _SECONDARY), (c.skip, "s", _SECONDARY)]
    rows.append({"type": _ACTION_ROW, "components": [
        {"type": _BUTTON, "style": style, "label": label,
         "custom_id": custom_id(prompt.question_id, code)} for label, code, style in buttons]})
    return rows


def _so_far(question: NativeQuestion, word: str) -> str | None:
    if question.free_text:
        return word
    labels = [b.label for b in question.options if b.action in question.chosen]
    return ", ".join(labels) if labels else None


def text(prompt: Prompt) -> str:
    """Every question in full (bold header, question, option notes), without selections: the
    same text whatever is chosen, so a long prompt splits the same way at every edit."""
    paragraphs = []
    for n, q in enumerate(_native(prompt).questions):
        lines = [f"**{escape_markdown(q.header)}**: {escape_markdown(q.question)}"]
        lines += [f"• {escape_markdown(label)} — {escape_markdown(note)}"
                  for label, note in prompt.questions[n].options if note]
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def chosen(prompt: Prompt) -> str:
    """What is chosen so far, a line per question (`**Zones** → North, South`), for the
    message with the menus; empty while nothing is."""
    native = _native(prompt)
    lines = [f"**{escape_markdown(q.header)}** → {escape_markdown(so_far)}"
             for q in native.questions if (so_far := _so_far(q, native.controls.chosen))]
    return "\n".join(lines)


def own_words_modal(question_id: QuestionId, prompt: Prompt) -> discord.ui.Modal:
    """`Other…`: one optional text input per question; its submit is handled by custom id."""
    title = tr(prompt.locale, "Your own answers") if len(prompt.questions) > 1 else \
        tr(prompt.locale, "{header}: your answer", header=prompt.title)
    modal = discord.ui.Modal(title=caption(title, 45), custom_id=custom_id(question_id, "n"),
                             timeout=None)
    for n, q in enumerate(prompt.questions):
        field: discord.ui.TextInput[discord.ui.Modal] = discord.ui.TextInput(
            custom_id=f"{OWN_WORDS_INPUT}{n}", style=discord.TextStyle.paragraph,
            max_length=1000, required=len(prompt.questions) == 1)
        modal.add_item(discord.ui.Label(text=caption(q.header, 45), component=field,
                                        description=caption(q.question, 100)))
    return modal
