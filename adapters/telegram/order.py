"""Updates handled side by side, in order where order matters."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from adapters.telegram import inbound, native

MAX_AT_ONCE = 64
"""Updates handled at once, whatever they are about."""


def order_key(update: object) -> str | None:
    """What an update must keep its place behind: a tap, the taps on its question (its button
    names it); a message, the messages of its chat."""
    if not isinstance(update, Update):
        return None
    if update.callback_query is not None:
        data = update.callback_query.data or ""
        button = inbound.parse_callback(data)
        if button is not None:
            return button[0]
        pressed = native.parse(data)
        if pressed is not None:
            return pressed.question_id
    chat = update.effective_chat
    return f"chat:{chat.id}" if chat is not None else None


class InOrderPerQuestion(BaseUpdateProcessor):
    """python-telegram-bot handles one update at a time unless told otherwise, so a tap waited
    for the tap before it to be handled to the end, its answerCallbackQuery round trip
    included (on Telegram, tens to hundreds of milliseconds), whatever question either was
    about. Here updates about different questions, or from different chats, run side by side;
    those about one question, and one chat's messages, run in the order received."""

    def __init__(self, max_at_once: int = MAX_AT_ONCE) -> None:
        super().__init__(max_concurrent_updates=max_at_once)
        self._lines: dict[str, tuple[asyncio.Lock, int]] = {}
        """Per key, its lock and how many updates hold or wait for it."""

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        key = order_key(update)
        if key is None:
            await coroutine
            return
        lock, users = self._lines.get(key) or (asyncio.Lock(), 0)
        self._lines[key] = (lock, users + 1)
        try:
            async with lock:  # PTB starts the updates' tasks in the order received
                await coroutine
        finally:
            lock, users = self._lines[key]
            if users == 1:
                del self._lines[key]
            else:
                self._lines[key] = (lock, users - 1)

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to tear down."""
