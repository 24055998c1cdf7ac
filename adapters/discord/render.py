"""Prompts and finalizations as Discord message payloads (pure)."""

from __future__ import annotations

from typing import Any

import discord
from discord.utils import escape_markdown

from adapters.discord import approval, native
from adapters.discord.ids import MODAL_ACTION, custom_id
from bridge import (
    Button,
    ButtonsLayout,
    Finalization,
    NativePrompt,
    Prompt,
    QuestionId,
    Reminder,
    TextLayout,
    caption,
    split_escaped,
    split_text,
    tr,
)

MAX_CONTENT = 2000
"""Discord's message length limit."""
ANSWER_INPUT = "ab:answer"
"""The custom id of the modal's text input."""
NO_MENTIONS: dict[str, Any] = {"parse": []}
"""A question's text must never ping @everyone or anyone else."""
Payload = dict[str, Any]

_PRIMARY, _SECONDARY = 1, 2
_ACTION_ROW, _BUTTON = 1, 2


def _button(question_id: QuestionId, button: Button) -> Payload:
    return {"type": _BUTTON, "style": _PRIMARY if button.primary else _SECONDARY,
            "label": caption(button.label, 80), "custom_id": custom_id(question_id, button.action)}


def components(prompt: Prompt) -> list[Payload]:
    """Options on the first row, then `Other…` and `Skip` (a row holds at most five buttons)."""
    if prompt.approval is not None and isinstance(prompt.layout, ButtonsLayout):
        return approval.components(prompt)
    buttons = prompt.layout.buttons if isinstance(prompt.layout, ButtonsLayout) else ()
    options = [b for b in buttons if isinstance(b.action, int)]
    extras = [b for b in buttons if not isinstance(b.action, int)]
    return [{"type": _ACTION_ROW, "components": [_button(prompt.question_id, b) for b in row]}
            for row in (options, extras) if row]


def _room(prompt: Prompt) -> int:
    """What the last message adds below its part of the text: what is chosen so far and the
    expiry line while open, the status line once ended (each label at most once)."""
    words = [label for q in prompt.questions for label, _ in q.options]
    words += [q.header for q in prompt.questions]
    return 100 + sum(len(escape_markdown(w)) + 8 for w in words)


def _parts(prompt: Prompt) -> list[str]:
    """The prompt's text in messages Discord accepts, leaving room in the last one."""
    match prompt.layout:
        case NativePrompt():
            return split_text(native.text(prompt), MAX_CONTENT, last_room=_room(prompt))
        case ButtonsLayout():
            text = f"**{escape_markdown(prompt.title)}**\n{escape_markdown(prompt.body)}"
            return split_text(text, MAX_CONTENT, last_room=_room(prompt))
        case TextLayout():
            numbered = "\n".join(prompt.text.splitlines()[:-1])  # its last line is the expiry
            return split_escaped(numbered, MAX_CONTENT, escape_markdown, last_room=_room(prompt))


def prompt(prompt: Prompt) -> list[Payload]:
    """The messages to send, in order: the last one carries the buttons or menus (the one a
    reply, a selection or finalization refers to)."""
    parts = _parts(prompt) or [""]
    *leading, last = parts
    taps = isinstance(prompt.layout, NativePrompt)
    chosen = native.chosen(prompt) if taps else ""
    tail = f"{last}\n\n{chosen}" if chosen else last
    rows = native.components(prompt) if taps else components(prompt)
    sep = "\n\n" if taps else "\n"
    return [*({"content": part, "allowed_mentions": NO_MENTIONS} for part in leading),
            {"content": f"{tail}{sep}{escape_markdown(prompt.expiry)}", "components": rows,
             "allowed_mentions": NO_MENTIONS}]


def reminder(reminder: Reminder, prompt_message_id: int | None) -> Payload:
    """A reminder that replies to the prompt's message (if it is still there)."""
    body: Payload = {"content": escape_markdown(reminder.text), "allowed_mentions": NO_MENTIONS}
    if prompt_message_id is not None:
        body["message_reference"] = {"message_id": str(prompt_message_id),
                                     "fail_if_not_exists": False}
    return body


def final(final: Finalization, surface: str) -> Payload:
    """The prompt's last message once its question ended: no components, the status line added."""
    status = final.status_line
    if final.kind == "answered" and final.answered_on not in (None, surface):
        status = tr(final.prompt.locale, "{status} (elsewhere)", status=status)
    text = (_parts(final.prompt) or [""])[-1]
    return {"content": f"{text}\n\n**{escape_markdown(status)}**", "components": [],
            "allowed_mentions": NO_MENTIONS}


def other_modal(question_id: QuestionId, prompt: Prompt | None,
                locale: str) -> discord.ui.Modal:
    """`Other…`: a modal with one text input; its submit is handled by custom id, not memory."""
    title = (tr(locale, "{header}: your answer", header=prompt.title) if prompt
             else tr(locale, "Your answer"))
    modal = discord.ui.Modal(title=caption(title, 45), custom_id=custom_id(question_id, MODAL_ACTION),
                             timeout=None)
    question = prompt.questions[0].question if prompt else None
    text_input: discord.ui.TextInput[discord.ui.Modal] = discord.ui.TextInput(
        custom_id=ANSWER_INPUT, style=discord.TextStyle.paragraph, max_length=1000)
    modal.add_item(discord.ui.Label(
        text=tr(locale, "Your answer"), component=text_input,
        description=None if question is None else caption(question, 100)))
    return modal
