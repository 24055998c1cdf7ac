"""Slack's documented rate limits, as the windows each message call counts against."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from adapters.slack.ids import target_of
from bridge import Priority, Window, WindowsByKey

POSTS_PER_CHANNEL_SECOND = 1
"""chat.postMessage: about one message a second per channel (short bursts tolerated)."""
UPDATES_PER_MINUTE = 50
"""chat.update is a Tier 3 method: 50 calls a minute per workspace."""


class SlackLimits:
    """A post counts against its channel's window, an update against chat.update's tier (the
    same window objects while in use; a channel's is dropped once idle, `WindowsByKey`)."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self.updates = (Window(UPDATES_PER_MINUTE, 60.0),)
        self.channels: WindowsByKey[str] = WindowsByKey(
            lambda channel: (Window(POSTS_PER_CHANNEL_SECOND, 1.0),))
        self.clock = clock or (lambda: asyncio.get_running_loop().time())

    def __call__(self, surface: str, priority: Priority) -> tuple[Window, ...]:
        if priority == Priority.EDIT:
            return self.updates
        return self.channels.get(target_of(surface)[0], self.clock())
