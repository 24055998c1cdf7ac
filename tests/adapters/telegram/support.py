"""Shared pieces of the Telegram tests: named people and chats, requests, waits, the `tg` context."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridge import BridgeConfig
from tests.fakes.telegram import TOKEN, FakeTelegram, payload
from tests.harness import Running, base_env, make_config, until
from tests.samples import CHECKS, TARGET, ask, with_options

OWNER = payload("user_owner")
STRANGER = payload("user_stranger")
DM = payload("chat_private_owner")
GROUP = payload("chat_supergroup")
FORUM = payload("chat_forum")
LABELS = [o["label"] for o in TARGET["options"]] + ["Other…", "Skip"]


def deploy(*labels: str) -> dict[str, Any]:
    """The sample request, or its question with these labels instead."""
    return ask(with_options(TARGET, *labels) if labels else TARGET)


CHECKS_AND_DEPLOY = with_options(CHECKS, "Lint", "Test", "Build", "Deploy")
"""The multi-select sample with four options, one a label that is also a header."""
CONFIRM = {"id": "notify", "header": "Notify", "question": "Who should be told?",
           "options": [{"label": "Nobody"}, {"label": "The team"}]}


def answered(qid: str, *labels: str) -> dict[str, Any]:
    return {"status": "answered", "answers": {"answers": {qid: {"answers": list(labels)}}}}


def keyboard(message: dict[str, Any]) -> bool:
    return bool(FakeTelegram.buttons(message))


async def delivered(r: Running, target: int | str) -> None:
    """The broker recorded the delivery (the fake sees the message a moment before that)."""
    await until(lambda: r.bridge.store.pending_on_surface(f"telegram:{target}"))  # type: ignore[arg-type]


async def edited(fake: FakeTelegram, prompt: dict[str, Any]) -> dict[str, Any]:
    """The prompt message once it was finalized (edited, keyboard gone)."""
    def done(m: dict[str, Any]) -> bool:
        return m["message_id"] == prompt["message_id"] and "edit_date" in m
    return await fake.sent(prompt["chat"]["id"], done)


@dataclass
class Tg:
    """One test's fake Bot API and the configs and environment that point a bridge at it."""

    fake: FakeTelegram
    tmp: Path

    @property
    def env(self) -> dict[str, str]:
        return {**base_env(), "TELEGRAM_BOT_TOKEN": TOKEN, "TG_HOOK_SECRET": "hook-secret-1"}

    def config(self, chat: int | str, answerers: list[int] | None = None,
               **telegram: Any) -> BridgeConfig:
        section = {"token_env": "TELEGRAM_BOT_TOKEN", "base_url": self.fake.base_url,
                   "poll_timeout": 5, "retry_base_seconds": 0.05,
                   "answerers": answerers or [], **telegram}
        return make_config(self.tmp, surfaces=[f"telegram:{chat}"], telegram=section)
