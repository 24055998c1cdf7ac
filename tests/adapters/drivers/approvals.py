"""A person deciding an approval on each button surface: press Approve / Allow, write a reason
after Reject, edit the arguments after Edit, and press a button whose payload is out of date.

Each method returns what the person is told (an alert, an ephemeral message, a reply, an error
inside a modal), or None when nothing was said."""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Protocol

from tests.adapters.drivers import Driver
from tests.adapters.drivers.discord import DiscordDriver
from tests.adapters.drivers.slack import SlackDriver
from tests.adapters.drivers.telegram import TelegramDriver
from tests.fakes.slack import payload as slack_payload
from tests.harness import until

STALE = "000000000000"
"""A fingerprint no payload here has: a button from a message that showed other arguments."""
_MARK = re.compile(r"([arel])([0-9a-f]{6,16})$")


def stale(custom_id: str) -> str:
    return _MARK.sub(lambda m: m.group(1) + STALE, custom_id)


class Approver(Protocol):
    person: Driver

    async def press(self, caption: str, stranger: bool = False, old: bool = False) -> str | None:
        """Press Approve / Allow for 1 h (as a stranger; on a message with an old payload)."""

    async def reject(self, reason: str) -> str | None: ...

    async def edit(self, arguments: str) -> str | None:
        """Edit, then send `arguments` (JSON text) as the edited arguments."""

    def edit_shows(self) -> str:
        """What the edit request or modal showed (the current arguments)."""


class TelegramApprover:
    def __init__(self, person: TelegramDriver) -> None:
        self.person, self.fake = person, person.fake
        self.shown = ""

    def _data(self, caption: str) -> str:
        return self.fake.button_data(self.person._now(), caption)

    async def press(self, caption: str, stranger: bool = False, old: bool = False) -> str | None:
        data = self._data(caption)
        user = self.person.stranger if stranger else self.person.owner
        update = self.fake.callback_update(self.person._now(), user, stale(data) if old else data)
        await self.fake.push(update)
        answer = await self.fake.wait_for(
            lambda: self.fake.callback_answer(update["callback_query"]["id"]))
        return str(answer["text"]) if answer.get("text") else None

    async def _answer(self, caption: str, text: str) -> str | None:
        asks = [k for k, m in self.fake.markups.items() if m.get("force_reply")]
        await self.press(caption)
        key = await self.fake.wait_for(lambda: next(
            (k for k, m in self.fake.markups.items() if m.get("force_reply") and k not in asks),
            None))
        self.shown = str(self.fake.messages[key]["text"])
        sent = len(self.fake.calls_of("sendMessage"))
        await self.fake.say(self.person.chat, self.person.owner, text,
                            reply_to=self.fake.messages[key])
        await until(lambda: len(self.fake.calls_of("sendMessage")) > sent)
        return str(self.fake.calls_of("sendMessage")[-1]["text"])

    async def reject(self, reason: str) -> str | None:
        return await self._answer(self.person.controls()[1], reason)

    async def edit(self, arguments: str) -> str | None:
        return await self._answer(self.person.controls()[2], arguments)

    def edit_shows(self) -> str:
        return self.shown


class DiscordApprover:
    def __init__(self, person: DiscordDriver) -> None:
        self.person, self.fake = person, person.fake
        self.shown = ""

    def _button(self, caption: str) -> str:
        return str(next(c["custom_id"] for c in self.person._items() if c.get("label") == caption))

    async def press(self, caption: str, stranger: bool = False, old: bool = False) -> str | None:
        custom_id = self._button(caption)
        user = self.person.stranger_id if stranger else self.person.owner
        callback = await self.fake.click(self.person._now(), stale(custom_id) if old else custom_id,
                                         user)
        return str(callback.data.get("content")) if callback.type == 4 else None

    async def _modal(self, caption: str, text: str) -> str | None:
        opened = await self.fake.click(self.person._now(), self._button(caption), self.person.owner)
        assert opened.type == 9, f"{caption} opens a modal"
        field = opened.data["components"][0]["component"]
        self.shown = str(field.get("value", ""))
        done = await self.fake.interact(5, {"custom_id": opened.data["custom_id"], "components": [
            {"type": 18, "id": 1, "component": {"type": 4, "id": 2,
                                                "custom_id": field["custom_id"], "value": text}}]},
            self.person.owner, self.fake.channel_id)
        return str(done.data.get("content")) if done.type == 4 else None

    async def reject(self, reason: str) -> str | None:
        return await self._modal(self.person.controls()[1], reason)

    async def edit(self, arguments: str) -> str | None:
        return await self._modal(self.person.controls()[2], arguments)

    def edit_shows(self) -> str:
        return self.shown


class SlackApprover:
    def __init__(self, person: SlackDriver) -> None:
        self.person, self.fake = person, person.fake
        self.shown = ""

    def _action(self, caption: str, old: bool = False) -> dict[str, Any]:
        button = copy.deepcopy(self.person._button(caption))
        if old:
            button["action_id"] = stale(button["action_id"])
        return button

    async def press(self, caption: str, stranger: bool = False, old: bool = False) -> str | None:
        body = self.person._body(self._action(caption, old),
                                 self.person.stranger_id if stranger else self.person.owner)
        notes, updates = len(self.fake.called("chat.postEphemeral")), \
            len(self.fake.called("chat.update"))
        await self.fake.send_envelope("interactive", body)
        await until(lambda: len(self.fake.called("chat.postEphemeral")) > notes
                    or len(self.fake.called("chat.update")) > updates)
        if len(self.fake.called("chat.postEphemeral")) > notes:
            return str(self.fake.called("chat.postEphemeral")[-1]["text"])
        return None

    async def _modal(self, caption: str, text: str) -> str | None:
        opened = len(self.fake.called("views.open"))
        await self.fake.send_envelope("interactive", self.person._body(self._action(caption),
                                                                       self.person.owner))
        view = (await self.fake.wait_call("views.open", opened + 1))["view"]
        block = view["blocks"][-1]
        self.shown = str(block["element"].get("initial_value", ""))
        body = slack_payload("view_submission")
        body["user"]["id"] = self.person.owner
        body["view"].update(callback_id=view["callback_id"],
                            private_metadata=view["private_metadata"], blocks=view["blocks"])
        body["view"]["state"]["values"] = {block["block_id"]: {
            block["element"]["action_id"]: {"type": "plain_text_input", "value": text}}}
        notes = len(self.fake.called("chat.postEphemeral"))
        ack = await self.fake.send_envelope("interactive", body)
        errors = (ack.get("payload") or {}).get("errors")
        if errors:
            return str(next(iter(errors.values())))
        if len(self.fake.called("chat.postEphemeral")) > notes:
            return str(self.fake.called("chat.postEphemeral")[-1]["text"])
        return None

    async def reject(self, reason: str) -> str | None:
        return await self._modal(self.person.controls()[1], reason)

    async def edit(self, arguments: str) -> str | None:
        return await self._modal(self.person.controls()[2], arguments)

    def edit_shows(self) -> str:
        return self.shown


def approver(person: Driver) -> Approver:
    kinds: dict[str, Any] = {"telegram": TelegramApprover, "discord": DiscordApprover,
                             "slack": SlackApprover}
    made: Approver = kinds[person.platform](person)
    return made


def as_json(value: Any) -> str:
    return json.dumps(value)

