"""Slack's documented rate limits, as the windows each message call counts against."""

from __future__ import annotations

from adapters.slack.ids import target_of
from bridge import Priority, Window

POSTS_PER_CHANNEL_SECOND = 1
"""chat.postMessage: about one message a second per channel (short bursts tolerated)."""
UPDATES_PER_MINUTE = 50
"""chat.update is a Tier 3 method: 50 calls a minute per workspace."""


class SlackLimits:
    """A post counts against its channel's window, an update against chat.update's tier (the
    same window objects every time)."""

    def __init__(self) -> None:
        self.updates = (Window(UPDATES_PER_MINUTE, 60.0),)
        self._channels: dict[str, tuple[Window, ...]] = {}

    def __call__(self, surface: str, priority: Priority) -> tuple[Window, ...]:
        if priority == Priority.EDIT:
            return self.updates
        channel = target_of(surface)[0]
        windows = self._channels.get(channel)
        if windows is None:
            windows = self._channels[channel] = (Window(POSTS_PER_CHANNEL_SECOND, 1.0),)
        return windows
