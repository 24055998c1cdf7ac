"""Inline keyboards as the Bot API's own JSON (pure): sent as is, with no PTB objects to build
and serialize again for every prompt and every edit."""

from __future__ import annotations

Button = dict[str, str]
Keyboard = dict[str, list[list[Button]]]
"""`{"inline_keyboard": rows}`, as `sendMessage` and `editMessageText` take it."""


def button(label: str, data: str) -> Button:
    return {"text": label, "callback_data": data}


def inline_keyboard(rows: list[list[Button]]) -> Keyboard:
    return {"inline_keyboard": rows}
