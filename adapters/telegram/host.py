"""What the tap handlers use of the adapter that owns them."""

from __future__ import annotations

from typing import Protocol

from telegram import Bot

from adapters.telegram.bindings import Bindings
from adapters.telegram.calls import Caller
from adapters.telegram.config import TelegramConfig
from bridge import InboundSink, Queries


class Host(Protocol):
    """What taps use of the adapter that owns them (the adapter is one; nothing else is)."""

    config: TelegramConfig
    call: Caller
    sink: InboundSink | None
    queries: Queries | None
    bindings: Bindings

    @property
    def locale(self) -> str: ...

    def bot(self) -> Bot: ...
