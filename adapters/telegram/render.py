"""Prompts and finalizations as Telegram message text and inline keyboards (pure, no parse_mode)."""

from __future__ import annotations

from telegram import MessageEntity, User

from adapters.telegram import approval, native
from adapters.telegram.ids import callback_data
from adapters.telegram.keyboards import Keyboard, button, inline_keyboard
from bridge import (
    DEFAULT_LOCALE,
    ButtonsLayout,
    Finalization,
    NativePrompt,
    Prompt,
    TextLayout,
    split_text,
    status_room,
    tr,
)

MAX_TEXT = 4096
"""Telegram's message length limit; text is sent without parse_mode, so nothing needs escaping."""
Message = tuple[str, Keyboard | None]
"""One message to send: its text and the keyboard under it."""


def keyboard(prompt: Prompt) -> Keyboard | None:
    """One row per option (labels may be 64 chars), then `Other…` and `Skip` side by side."""
    if not isinstance(prompt.layout, ButtonsLayout):
        return None
    if prompt.approval is not None:
        return approval.keyboard(prompt)
    options = [b for b in prompt.layout.buttons if isinstance(b.action, int)]
    extras = [b for b in prompt.layout.buttons if not isinstance(b.action, int)]
    rows = [[button(b.label, callback_data(prompt.question_id, b.action))] for b in options]
    if extras:
        rows.append([button(b.label, callback_data(prompt.question_id, b.action))
                     for b in extras])
    return inline_keyboard(rows)


def prompt_text(prompt: Prompt) -> str:
    """The text above the buttons (header, question, option notes), or the numbered plain text."""
    match prompt.layout:
        case ButtonsLayout():
            return f"{prompt.title}\n{prompt.body}\n\n{prompt.expiry}"
        case NativePrompt(questions=questions):  # finalized: every question, no walk
            return "\n".join(f"{q.header}: {q.question}" for q in questions)
        case TextLayout():
            return prompt.text


def _parts(text: str, prompt: Prompt) -> list[str]:
    return split_text(text, MAX_TEXT, last_room=status_room(prompt)) or [prompt.title]


def prompt(prompt: Prompt, step: int = 0) -> list[Message]:
    """The messages to send, in order: a long text in several, the keyboard under the last one
    (the message a tap edits and finalization ends)."""
    markup: Keyboard | None
    if isinstance(prompt.layout, NativePrompt):
        text, markup = native.text(prompt, step), native.keyboard(prompt, step)
    else:
        text, markup = prompt_text(prompt), keyboard(prompt)
    parts = _parts(text, prompt)
    return [*((part, None) for part in parts[:-1]), (parts[-1], markup)]


def final(final: Finalization) -> str:
    """The prompt's last message as it ends: its text kept, buttons gone, the status line (never
    free text) below."""
    return f"{_parts(prompt_text(final.prompt), final.prompt)[-1]}\n\n{final.status_line}"


def plain(text: str) -> list[str]:
    """Text with no keyboard (a reminder, a reply, a prompt whose buttons were refused)."""
    return split_text(text, MAX_TEXT)


def utf16_len(text: str) -> int:
    """Telegram measures entity offsets in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def free_text_request(
    prompt: Prompt | None, person: User | None, step: int = 0
) -> tuple[str, list[MessageEntity]]:
    """The force-reply message after `Other…`; in groups it names the person (selective reply)."""
    locale = prompt.locale if prompt else DEFAULT_LOCALE
    header = (prompt.questions[step].header if prompt and step < len(prompt.questions)
              else tr(locale, "Your answer"))
    tail = tr(locale, "{header}: reply to this message with your own answer.", header=header)
    if person is None:
        return tail, []
    name = person.first_name or tr(locale, "you")
    mention = MessageEntity(MessageEntity.TEXT_MENTION, 0, utf16_len(name), user=person)
    return f"{name}, {tail}", [mention]
