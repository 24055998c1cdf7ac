"""Prompts and finalizations as Telegram message text and inline keyboards (pure, no parse_mode)."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, MessageEntity, User

from bridge import DEFAULT_LOCALE, ButtonAction, Finalization, Prompt, QuestionId, time_of_day, tr

MAX_TEXT = 4096
"""Telegram's message length limit; text is sent without parse_mode, so nothing needs escaping."""
CALLBACK_PREFIX = "ab"
_ACTION_CODES = {"other": "o", "skip": "s"}


def callback_data(question_id: QuestionId, action: ButtonAction) -> str:
    """`ab:<question_id>:<index|o|s>`: everything a tap needs, even after a restart (< 64 bytes)."""
    code = str(action) if isinstance(action, int) else _ACTION_CODES[action]
    return f"{CALLBACK_PREFIX}:{question_id}:{code}"


def keyboard(prompt: Prompt) -> InlineKeyboardMarkup | None:
    """One row per option (labels may be 64 chars), then `Other…` and `Skip` side by side."""
    if not prompt.buttons:
        return None
    options = [b for b in prompt.buttons if isinstance(b.action, int)]
    extras = [b for b in prompt.buttons if not isinstance(b.action, int)]
    rows = [[InlineKeyboardButton(b.label, callback_data=callback_data(prompt.question_id,
                                                                        b.action))]
            for b in options]
    if extras:
        rows.append([InlineKeyboardButton(b.label, callback_data=callback_data(
            prompt.question_id, b.action)) for b in extras])
    return InlineKeyboardMarkup(rows)


def _expiry(prompt: Prompt) -> str:
    return tr(prompt.locale, "Expires at {time} UTC.",
              time=time_of_day(prompt.locale, prompt.expires_at))


def clip(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def prompt_message(prompt: Prompt) -> str:
    """The text above the buttons (header, question, option notes), or the numbered plain text."""
    if prompt.buttons:
        return clip(f"{prompt.title}\n{prompt.body}\n\n{_expiry(prompt)}")
    if prompt.native is not None:  # finalized: every question, no walk, no selections
        return clip("\n".join(f"{q.header}: {q.question}" for q in prompt.native.questions))
    return clip(prompt.text)


def final_message(final: Finalization) -> str:
    """The prompt kept as it was, buttons gone, and the status line (never free text) below."""
    status = f"\n\n{final.status_line}"
    return clip(prompt_message(final.prompt), MAX_TEXT - len(status)) + status


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
