"""A person in a Telegram private chat with the bot: taps inline keyboards, walks, replies."""

from __future__ import annotations

import copy
import re
from typing import Any

from tests.fakes.telegram import TOKEN, FakeTelegram
from tests.fakes.telegram import payload as tg_payload
from tests.harness import base_env, until

_STEP = re.compile(r"^(\d+)/(\d+) ")


class TelegramDriver:
    platform = "telegram"

    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.chat = tg_payload("chat_private_owner")
        self.owner, self.stranger = tg_payload("user_owner"), tg_payload("user_stranger")
        fake.add_chat(self.chat)
        self.surface = f"telegram:{self.chat['id']}"
        self.env = {**base_env(), "TELEGRAM_BOT_TOKEN": TOKEN}
        self.key: tuple[int, int] | None = None

    def section(self, native: str) -> dict[str, Any]:
        return {"telegram": {"base_url": self.fake.base_url, "poll_timeout": 1,
                             "retry_base_seconds": 0.05, "native": native}}

    def _now(self) -> dict[str, Any]:
        assert self.key is not None
        return self.fake.messages[self.key]

    async def prompt(self) -> None:
        message = await self.fake.sent(self.chat["id"])
        self.key = (self.chat["id"], message["message_id"])

    async def _press(self, caption: str, stranger: bool = False) -> str | None:
        before = copy.deepcopy(self._now())
        rows = before["reply_markup"]["inline_keyboard"]
        data = next(b["callback_data"] for row in rows for b in row
                    if b["text"] == caption or b["text"].endswith(f" {caption}")
                    or b["text"].startswith(f"{caption} "))
        update = self.fake.callback_update(before, self.stranger if stranger else self.owner,
                                           data)
        await self.fake.push(update)
        query = update["callback_query"]["id"]
        answer = await self.fake.wait_for(lambda: self.fake.callback_answer(query))
        if answer.get("show_alert"):
            return str(answer.get("text"))
        await until(lambda: self._now() != before)
        return None

    def _step(self) -> int:
        match = _STEP.match(self._now()["text"])
        return int(match.group(1)) - 1 if match else 0

    async def _walk_to(self, step: int) -> None:
        while self._step() != step:
            await self._press("Next" if self._step() < step else "Back")

    async def pick(self, question: int, label: str, stranger: bool = False) -> str | None:
        await self._walk_to(question)
        return await self._press(label, stranger)

    async def submit(self) -> str | None:
        while "Next ›" in self.controls():
            await self._press("Next")
        before = len(self.fake.calls_of("answerCallbackQuery"))
        refusal = await self._press_any("Done")
        await until(lambda: len(self.fake.calls_of("answerCallbackQuery")) > before)
        return refusal or str(self.fake.calls_of("answerCallbackQuery")[-1].get("text"))

    async def _press_any(self, caption: str) -> str | None:
        """A press that may end the prompt (its message is edited by finalization)."""
        message = self._now()
        update = self.fake.callback_update(message, self.owner,
                                           self.fake.button_data(message, caption))
        await self.fake.push(update)
        query = update["callback_query"]["id"]
        answer = await self.fake.wait_for(lambda: self.fake.callback_answer(query))
        return str(answer.get("text")) if answer.get("show_alert") else None

    async def skip(self) -> None:
        await self._press_any("Skip")

    async def own_words(self, question: int, text: str) -> None:
        await self._walk_to(question)
        asks = len([m for m in self.fake.markups.values() if m.get("force_reply")])
        await self._press_any("Other…")
        await self.fake.wait_for(lambda: len(
            [m for m in self.fake.markups.values() if m.get("force_reply")]) > asks)
        key = [k for k, m in self.fake.markups.items() if m.get("force_reply")][-1]
        await self.fake.say(self.chat, self.owner, text, reply_to=self.fake.messages[key])

    async def say(self, text: str) -> None:
        await self.fake.say(self.chat, self.owner, text)

    def text(self) -> str:
        return str(self._now()["text"])

    async def chosen(self, question: int) -> list[str]:
        await self._walk_to(question)
        return [c.split(" ", 1)[1] for c in self.controls() if c[:1] in ("☑", "✓")]

    def controls(self) -> list[str]:
        return self.fake.buttons(self._now())
