"""A person at each button surface: tap options, submit, skip and type, against the fake platform.

Each driver presses what a person would press on the message as the platform now shows it,
through the real library and the project's fake server, and waits for the bot's visible answer
(an edit of the prompt, or a notice) before returning — so the contract cases read the same
on every platform.
"""

from __future__ import annotations

import copy
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Protocol

from tests.fakes.discord import FakeDiscord
from tests.fakes.slack import (
    APP_TOKEN,
    BOT_TOKEN,
    SIGNING_SECRET,
    FakeSlack,
    fake_slack,
    message_body,
)
from tests.fakes.slack import (
    payload as slack_payload,
)
from tests.fakes.telegram import TOKEN, FakeTelegram
from tests.fakes.telegram import payload as tg_payload
from tests.harness import base_env, until

_STEP = re.compile(r"^(\d+)/(\d+) ")


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


class DiscordDriver:
    platform = "discord"
    owner, stranger_id = 4001, 4002

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.surface = f"discord:{fake.channel_id}"
        self.env = {**base_env(), "DISCORD_BOT_TOKEN": fake.token}
        self.message_id: str | None = None

    def section(self, native: str) -> dict[str, Any]:
        return {"discord": {"api_base": self.fake.api_base, "gateway_url": self.fake.gateway_url,
                            "guild_ready_timeout": 0.05, "answerers": [self.owner],
                            "native": native}}

    def _now(self) -> dict[str, Any]:
        assert self.message_id is not None
        return self.fake.messages[self.message_id]

    async def prompt(self) -> None:
        mine = await until(lambda: self.fake.in_channel(self.fake.channel_id))
        self.message_id = str(mine[-1]["id"])

    def _items(self) -> list[dict[str, Any]]:
        return [c for row in self._now()["components"] for c in row["components"]]

    async def _settle(self, action: Any, stranger: bool = False) -> str | None:
        """Run an interaction; the prompt's edit (accepted) or an ephemeral notice (refused)."""
        edits, notes = len(self.fake.edits), len(self.fake.followups)
        callback = await action
        if callback.type == 4:
            return str(callback.data.get("content"))
        await until(lambda: len(self.fake.edits) > edits or len(self.fake.followups) > notes)
        if len(self.fake.followups) > notes:
            return str(self.fake.followups[-1].get("content"))
        return None

    async def pick(self, question: int, label: str, stranger: bool = False) -> str | None:
        select = next(c for c in self._items() if c["custom_id"].endswith(f":v{question}"))
        value = next(o["value"] for o in select["options"] if o["label"] == label)
        chosen = [o["value"] for o in select["options"] if o.get("default")]
        if select["max_values"] > 1:
            chosen = [v for v in chosen if v != value] + ([] if value in chosen else [value])
        else:
            chosen = [value]
        user = self.stranger_id if stranger else self.owner
        data = {"custom_id": select["custom_id"], "component_type": 3, "values": chosen}
        return await self._settle(self.fake.interact(3, data, user, self.fake.channel_id,
                                                     self._now()), stranger)

    async def _click(self, caption: str) -> str | None:
        button = next(c for c in self._items() if c.get("label") == caption)
        return await self._settle(self.fake.click(self._now(), button["custom_id"], self.owner))

    async def submit(self) -> str | None:
        caption = "Submit" if "Submit" in self.controls() else "Done"
        return await self._click(caption)

    async def own_words(self, question: int, text: str) -> None:
        button = next(c for c in self._items() if c.get("label") == "Other…")
        modal = await self.fake.click(self._now(), button["custom_id"], self.owner)
        assert modal.type == 9, "Other… opens a modal"
        field = next(c["component"] for c in modal.data["components"]
                     if c["component"]["custom_id"].endswith(f":{question}"))
        await self.fake.interact(5, {"custom_id": modal.data["custom_id"], "components": [
            {"type": 18, "id": 1, "component": {"type": 4, "id": 2,
                                                "custom_id": field["custom_id"],
                                                "value": text}}]},
            self.owner, self.fake.channel_id)

    async def skip(self) -> None:
        await self._click("Skip")

    async def say(self, text: str) -> None:
        await self.fake.user_message(self.fake.channel_id, self.owner, text, reply_to=self._now())

    def text(self) -> str:
        return str(self._now()["content"])

    async def chosen(self, question: int) -> list[str]:
        select = next(c for c in self._items() if c["custom_id"].endswith(f":v{question}"))
        return [o["label"] for o in select["options"] if o.get("default")]

    def controls(self) -> list[str]:
        out: list[str] = []
        for c in self._items():
            out += [c["label"]] if "label" in c else [o["label"] for o in c["options"]]
        return out


class SlackDriver:
    platform = "slack"
    owner, stranger_id = "U0123", "U0999"

    def __init__(self, fake: FakeSlack) -> None:
        self.fake = fake
        self.surface = "slack:C0123"
        self.env = {**base_env(), "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_APP_TOKEN": APP_TOKEN,
                    "SLACK_SIGNING_SECRET": SIGNING_SECRET}
        self.key: tuple[str, str] | None = None

    def section(self, native: str) -> dict[str, Any]:
        return {"slack": {"base_url": self.fake.base_url, "connect_timeout_seconds": 5,
                          "answerers": [self.owner], "native": native}}

    def _now(self) -> dict[str, Any]:
        assert self.key is not None
        return self.fake.messages[self.key]

    async def prompt(self) -> None:
        message = await self.fake.wait_posted(len(self.fake.called("chat.postMessage")) or 1)
        self.key = (message["channel"], message["ts"])

    def _elements(self) -> list[dict[str, Any]]:
        return [e for b in self._now()["blocks"] if b["type"] == "actions"
                for e in b["elements"]]

    def _body(self, action: dict[str, Any], user: str) -> dict[str, Any]:
        message = self._now()
        body = slack_payload("block_actions")
        body["user"]["id"] = user
        body["channel"]["id"] = message["channel"]
        body["container"].update(message_ts=message["ts"], channel_id=message["channel"])
        body["message"].update(ts=message["ts"], text=message["text"],
                               blocks=copy.deepcopy(message["blocks"]))
        body["actions"] = [{**action, "block_id": "", "action_ts": f"{time.time():.6f}"}]
        return body

    async def _act(self, action: dict[str, Any], user: str) -> str | None:
        body = self._body(action, user)
        updates, notes = len(self.fake.called("chat.update")), \
            len(self.fake.called("chat.postEphemeral"))
        await self.fake.send_envelope("interactive", body)  # acked before anything else
        await until(lambda: len(self.fake.called("chat.update")) > updates or
                    len(self.fake.called("chat.postEphemeral")) > notes)
        if len(self.fake.called("chat.postEphemeral")) > notes:
            return str(self.fake.called("chat.postEphemeral")[-1]["text"])
        return None

    async def pick(self, question: int, label: str, stranger: bool = False) -> str | None:
        element = next(e for e in self._elements() if e["action_id"].endswith(f":v{question}"))
        option = next(o for o in element["options"] if o["text"]["text"] == label)
        action: dict[str, Any] = {"type": element["type"], "action_id": element["action_id"]}
        if element["type"] == "checkboxes":
            chosen = [o for o in element.get("initial_options", [])
                      if o["value"] != option["value"]]
            if option not in element.get("initial_options", []):
                chosen.append(option)
            action["selected_options"] = chosen
        else:
            action["selected_option"] = option
        return await self._act(action, self.stranger_id if stranger else self.owner)

    def _button(self, caption: str) -> dict[str, Any]:
        button = next(e for e in self._elements() if e["type"] == "button"
                      and e["text"]["text"] == caption)
        return {"type": "button", "action_id": button["action_id"], "value": button["value"],
                "text": button["text"]}

    async def submit(self) -> str | None:
        caption = "Submit" if "Submit" in self.controls() else "Done"
        return await self._act(self._button(caption), self.owner)

    async def skip(self) -> None:
        await self._act(self._button("Skip"), self.owner)

    async def own_words(self, question: int, text: str) -> None:
        opened = len(self.fake.called("views.open"))
        await self.fake.send_envelope("interactive", self._body(self._button("Other…"),
                                                                self.owner))
        view = (await self.fake.wait_call("views.open", opened + 1))["view"]
        block = view["blocks"][question]
        body = slack_payload("view_submission")
        body["user"]["id"] = self.owner
        body["view"].update(callback_id=view["callback_id"],
                            private_metadata=view["private_metadata"], blocks=view["blocks"])
        body["view"]["state"]["values"] = {block["block_id"]: {
            block["element"]["action_id"]: {"type": "plain_text_input", "value": text}}}
        await self.fake.send_envelope("interactive", body)

    async def say(self, text: str) -> None:
        assert self.key is not None
        await self.fake.send_envelope("events_api", message_body(
            self.key[0], text, self.owner, thread_ts=self.key[1]))

    def text(self) -> str:
        message = self._now()
        parts = [str(b["text"]["text"]) for b in message["blocks"] if b["type"] == "section"]
        parts += [str(e["text"]) for b in message["blocks"] if b["type"] == "context"
                  for e in b["elements"]]
        return "\n".join(parts) if parts else str(message["text"])

    async def chosen(self, question: int) -> list[str]:
        element = next(e for e in self._elements() if e["action_id"].endswith(f":v{question}"))
        picked = element.get("initial_options") or [element.get("initial_option")]
        return [o["text"]["text"] for o in picked if o]

    def controls(self) -> list[str]:
        out = []
        for e in self._elements():
            out += [e["text"]["text"]] if e["type"] == "button" else \
                [o["text"]["text"] for o in e["options"]]
        return out


@asynccontextmanager
async def driver(platform: str) -> AsyncIterator[Driver]:
    if platform == "telegram":
        async with FakeTelegram() as tg:
            yield TelegramDriver(tg)
    elif platform == "discord":
        fake = await FakeDiscord().start()
        try:
            yield DiscordDriver(fake)
        finally:
            await fake.stop()
    else:
        async with fake_slack() as slack:
            yield SlackDriver(slack)
