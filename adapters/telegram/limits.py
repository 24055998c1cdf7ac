"""Telegram's documented flood limits, as the windows each message call counts against."""

from __future__ import annotations

from adapters.telegram.ids import chat_of
from bridge import Priority, SurfaceId, Window

BOT_PER_SECOND = 30
"""Messages (sent or edited) per second per bot, across all chats."""
CHAT_PER_SECOND = 1
"""Messages per second in one chat."""
GROUP_PER_MINUTE = 20
"""Messages per minute in one group, supergroup or channel."""
GROUP_SECONDS = 60.0


class TelegramLimits:
    """The windows of a surface's chat (the same objects every time): the bot's, the chat's,
    and for a group the group's per-minute one. Groups, supergroups and channels have negative
    ids or a `@name`; private chats have positive ids."""

    def __init__(self) -> None:
        self.bot = Window(BOT_PER_SECOND, 1.0)
        self._chats: dict[int | str, tuple[Window, ...]] = {}

    def __call__(self, surface: str, priority: Priority) -> tuple[Window, ...]:
        chat = chat_of(SurfaceId(surface))[0]
        windows = self._chats.get(chat)
        if windows is None:
            own = Window(CHAT_PER_SECOND, 1.0)
            group = isinstance(chat, str) or chat < 0
            windows = (self.bot, own, Window(GROUP_PER_MINUTE, GROUP_SECONDS)) if group else (self.bot, own)
            self._chats[chat] = windows
        return windows
