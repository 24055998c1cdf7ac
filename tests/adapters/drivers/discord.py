"""A person in a Discord server channel: select menus, buttons, modals and replies."""

from __future__ import annotations

from typing import Any

from tests.fakes.discord import FakeDiscord
from tests.harness import base_env, until


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
