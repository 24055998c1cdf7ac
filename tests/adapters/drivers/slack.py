"""A person in a Slack channel over Socket Mode: radio buttons, checkboxes, modals, threads."""

from __future__ import annotations

import copy
import time
from typing import Any

from tests.fakes.slack import (
    APP_TOKEN,
    BOT_TOKEN,
    SIGNING_SECRET,
    FakeSlack,
    message_body,
)
from tests.fakes.slack import payload as slack_payload
from tests.harness import base_env, until


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
