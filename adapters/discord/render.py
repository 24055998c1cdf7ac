"""Prompts and finalizations as Discord message payloads (pure), and the ids they carry."""

from __future__ import annotations

from typing import Any

import discord
from discord.utils import escape_markdown

from bridge import (
    Button,
    ButtonAction,
    Finalization,
    MessageRef,
    Prompt,
    QuestionId,
    Reminder,
    tr,
)

MAX_CONTENT = 2000
"""Discord's message length limit."""
CHUNK = 1800
"""Room left in the prompt's last message for the status line added on finalization."""
CUSTOM_ID_PREFIX = "ab"
MODAL_ACTION = "m"
ANSWER_INPUT = "ab:answer"
"""The custom id of the modal's text input."""
NO_MENTIONS: dict[str, Any] = {"parse": []}
"""A question's text must never ping @everyone or anyone else."""

_PRIMARY, _SECONDARY = 1, 2
_ACTION_ROW, _BUTTON = 1, 2
_CODES: dict[str, str] = {"other": "o", "skip": "s"}


def message_ref(channel_id: int | str, message_id: int | str) -> MessageRef:
    """`<channel_id>:<message_id>`: what the broker stores and a reply's reference matches."""
    return MessageRef(f"{channel_id}:{message_id}")


def split_ref(ref: str) -> tuple[int, int] | None:
    channel, _, message = ref.partition(":")
    if not (channel.isdigit() and message.isdigit()):
        return None
    return int(channel), int(message)


def custom_id(question_id: QuestionId, action: ButtonAction | str) -> str:
    """`ab:<question_id>:<index|o|s|m>`: everything needed to act on a click after a restart."""
    code = str(action) if isinstance(action, int) else _CODES.get(action, action)
    return f"{CUSTOM_ID_PREFIX}:{question_id}:{code}"


def _button(question_id: QuestionId, button: Button) -> dict[str, Any]:
    return {"type": _BUTTON, "style": _PRIMARY if button.primary else _SECONDARY,
            "label": button.label[:80], "custom_id": custom_id(question_id, button.action)}


def components(prompt: Prompt) -> list[dict[str, Any]]:
    """Options on the first row, then `Other…` and `Skip` (a row holds at most five buttons)."""
    buttons = prompt.buttons or ()
    options = [b for b in buttons if isinstance(b.action, int)]
    extras = [b for b in buttons if not isinstance(b.action, int)]
    return [{"type": _ACTION_ROW, "components": [_button(prompt.question_id, b) for b in row]}
            for row in (options, extras) if row]


def _expiry(prompt: Prompt) -> str:
    return tr(prompt.locale, "Expires {when}.", when=f"<t:{int(prompt.expires_at.timestamp())}:R>")


def _button_text(prompt: Prompt) -> str:
    return f"**{escape_markdown(prompt.title)}**\n{escape_markdown(prompt.body)}"


def _text_chunks(prompt: Prompt) -> list[str]:
    """The numbered text without its expiry line (that goes last), in pieces Discord accepts."""
    lines = prompt.text.splitlines()[:-1]  # the text's last line is always its expiry
    chunks: list[str] = []
    current = ""
    for line in escape_markdown("\n".join(lines)).splitlines():
        while len(line) > CHUNK:
            chunks.append(line[:CHUNK])
            line = line[CHUNK:]
        if current and len(current) + 1 + len(line) > CHUNK:
            chunks.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    return [*chunks, current]


def prompt_messages(prompt: Prompt) -> list[dict[str, Any]]:
    """The messages to send, in order; the last one is the prompt (buttons, replies, edits)."""
    if prompt.buttons:
        return [{"content": f"{_button_text(prompt)}\n{_expiry(prompt)}",
                 "components": components(prompt), "allowed_mentions": NO_MENTIONS}]
    chunks = _text_chunks(prompt)
    chunks[-1] = f"{chunks[-1]}\n{_expiry(prompt)}"
    return [{"content": c, "allowed_mentions": NO_MENTIONS} for c in chunks]


def reminder_message(reminder: Reminder, prompt_message_id: int | None) -> dict[str, Any]:
    """A reminder that replies to the prompt's message (if it is still there)."""
    body: dict[str, Any] = {"content": escape_markdown(reminder.text),
                            "allowed_mentions": NO_MENTIONS}
    if prompt_message_id is not None:
        body["message_reference"] = {"message_id": str(prompt_message_id),
                                     "fail_if_not_exists": False}
    return body


def final_edit(final: Finalization, surface: str) -> dict[str, Any]:
    """The prompt's last message once its question ended: no components, the status line added."""
    prompt = final.prompt
    if prompt.native is not None:  # every question, without selections or controls
        from adapters.discord import native
        text = native.chunks(prompt, choices=False)[-1]
    else:
        text = _button_text(prompt) if prompt.buttons else _text_chunks(prompt)[-1]
    status = final.status_line
    if final.kind == "answered" and final.answered_on not in (None, surface):
        status = tr(prompt.locale, "{status} (elsewhere)", status=status)
    return {"content": f"{text}\n\n**{escape_markdown(status)}**"[:MAX_CONTENT],
            "components": [], "allowed_mentions": NO_MENTIONS}


def other_modal(question_id: QuestionId, prompt: Prompt | None,
                locale: str) -> discord.ui.Modal:
    """`Other…`: a modal with one text input; its submit is handled by custom id, not memory."""
    title = (tr(locale, "{header}: your answer", header=prompt.title) if prompt
             else tr(locale, "Your answer"))[:45]
    modal = discord.ui.Modal(title=title, custom_id=custom_id(question_id, MODAL_ACTION),
                             timeout=None)
    question = prompt.questions[0].question if prompt else None
    text_input: discord.ui.TextInput[discord.ui.Modal] = discord.ui.TextInput(
        custom_id=ANSWER_INPUT, style=discord.TextStyle.paragraph, max_length=1000)
    modal.add_item(discord.ui.Label(
        text=tr(locale, "Your answer"), component=text_input,
        description=question if question is None or len(question) <= 100
        else question[:99] + "…"))
    return modal
