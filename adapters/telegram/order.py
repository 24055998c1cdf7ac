"""Updates handled side by side, in order where order matters."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

MAX_AT_ONCE = 64
"""Updates handled at once, whatever they are about."""


def order_key(update: object) -> str | None:
    """What an update must keep its place behind: a tap, the taps on the same message (a
    prompt's buttons are all on its last message, so these are the taps on one question in one
    chat; its callback data is left for the handler to read, once); a message, the messages of
    its chat."""
    if not isinstance(update, Update):
        return None
    query = update.callback_query
    if query is not None and query.message is not None:
        return f"tap:{query.message.chat.id}:{query.message.message_id}"
    chat = update.effective_chat
    return f"chat:{chat.id}" if chat is not None else None


class InOrderPerPrompt(BaseUpdateProcessor):
    """python-telegram-bot handles one update at a time unless told otherwise, so a tap waited
    for the tap before it to be handled to the end, its answerCallbackQuery round trip
    included (on Telegram, tens to hundreds of milliseconds), whatever question either was
    about. Here taps on different prompts, and messages in different chats, run side by side;
    the taps on one prompt, and one chat's messages, run in the order received."""

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
