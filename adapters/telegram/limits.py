"""Telegram's documented flood limits, as the windows each message call counts against."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from adapters.telegram.ids import chat_of
from bridge import Priority, SurfaceId, Window, WindowsByKey

BOT_PER_SECOND = 30
"""Messages (sent or edited) per second per bot, across all chats."""
CHAT_PER_SECOND = 1
"""Messages per second in one chat."""
GROUP_PER_MINUTE = 20
"""Messages per minute in one group, supergroup or channel."""
GROUP_SECONDS = 60.0


class TelegramLimits:
    """The windows of a surface's chat (the same objects while in use): the bot's, the chat's,
    and for a group the group's per-minute one. Groups, supergroups and channels have negative
    ids or a `@name`; private chats have positive ids. A chat's windows are dropped once idle
    (`WindowsByKey`). `clock`: the event loop's time unless given."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self.bot = Window(BOT_PER_SECOND, 1.0)
        self.chats: WindowsByKey[int | str] = WindowsByKey(self._windows, GROUP_SECONDS)
        self.clock = clock or (lambda: asyncio.get_running_loop().time())

    def _windows(self, chat: int | str) -> tuple[Window, ...]:
        own = Window(CHAT_PER_SECOND, 1.0)
        if isinstance(chat, str) or chat < 0:
            return self.bot, own, Window(GROUP_PER_MINUTE, GROUP_SECONDS)
        return self.bot, own

    def __call__(self, surface: str, priority: Priority) -> tuple[Window, ...]:
        return self.chats.get(chat_of(SurfaceId(surface))[0], self.clock())
