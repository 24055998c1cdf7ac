"""A person at each button surface: tap options, submit, skip and type, against the fake platform.

Each driver presses what a person would press on the message as the platform now shows it,
through the real library and the project's fake server, and waits for the bot's visible answer
(an edit of the prompt, or a notice) before returning — so the contract cases read the same
on every platform.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Protocol

from tests.fakes.discord import FakeDiscord
from tests.fakes.slack import fake_slack
from tests.fakes.telegram import FakeTelegram


class Driver(Protocol):
    platform: str
    surface: str
    env: dict[str, str]

    def section(self, native: str) -> dict[str, Any]: ...

    async def prompt(self) -> None:
        """Wait until the prompt is on the platform (the newest one in the conversation)."""

    async def pick(self, question: int, label: str, stranger: bool = False) -> str | None:
        """Choose (or un-choose) `label` in question `question`; a refusal's text, else None."""

    async def submit(self) -> str | None:
        """Press Done/Submit; what the person is told."""

    async def skip(self) -> None: ...

    async def own_words(self, question: int, text: str) -> None:
        """`Other…`, then type `text` as the answer to question `question` only."""

    async def say(self, text: str) -> None:
        """The answerer types `text` in the conversation (replying to the prompt)."""

    def text(self) -> str:
        """The prompt's text as it now stands."""

    def controls(self) -> list[str]:
        """Every button, menu or checkbox caption on the prompt now ([] once finalized)."""

    async def chosen(self, question: int) -> list[str]:
        """The options the prompt shows as chosen for question `question`."""


@asynccontextmanager
async def driver(platform: str) -> AsyncIterator[Driver]:
    if platform == "telegram":
        async with FakeTelegram() as tg:
            from tests.adapters.drivers.telegram import TelegramDriver

            yield TelegramDriver(tg)
    elif platform == "discord":
        fake = await FakeDiscord().start()
        try:
            from tests.adapters.drivers.discord import DiscordDriver

            yield DiscordDriver(fake)
        finally:
            await fake.stop()
    else:
        async with fake_slack() as slack:
            from tests.adapters.drivers.slack import SlackDriver

            yield SlackDriver(slack)
