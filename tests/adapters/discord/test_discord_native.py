"""Discord's native layout: a select menu per question, Submit · Other… · Skip, selects acked."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.adapters.discord.support import ANSWERER, STRANGER, TWO, config, env, prompt_in
from tests.fakes.discord import FakeDiscord
from tests.harness import running, until


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    server = await FakeDiscord().start()
    yield server
    await server.stop()


async def test_select_menus_are_acknowledged_at_once_and_shown_back(
        tmp_path: Path, fake: FakeDiscord) -> None:
    async with running(config(tmp_path, fake), env(fake)) as r, r.client() as client:
        qid = (await client.create(TWO))["id"]
        prompt = await prompt_in(fake, r)
        rows = prompt["components"]
        assert [row["components"][0]["type"] for row in rows] == [3, 3, 2]
        env_menu, steps_menu = rows[0]["components"][0], rows[1]["components"][0]
        assert (env_menu["min_values"], env_menu["max_values"]) == (1, 1)
        assert (steps_menu["min_values"], steps_menu["max_values"]) == (1, 3)
        assert [o["label"] for o in steps_menu["options"]] == ["Lint", "Test", "Build"]
        assert [b["label"] for b in rows[2]["components"]] == ["Submit", "Other…", "Skip"]
        assert all(len(c["custom_id"]) <= 100 for row in rows for c in row["components"])

        pick = {"custom_id": steps_menu["custom_id"], "component_type": 3, "values": ["0", "2"]}
        refused = await fake.interact(3, pick, STRANGER, fake.channel_id, prompt)
        assert refused.type == 6, "a select is acknowledged at once (deferred update)"
        await until(lambda: fake.followups)
        assert fake.followups[-1]["flags"] == 64
        assert "only the person" in fake.followups[-1]["content"]
        assert await r.bridge.store.partial(qid) == {}
        restored = await until(lambda: [b for mid, b in fake.edits if mid == prompt["id"]])
        menu = restored[-1]["components"][1]["components"][0]
        assert not any(o["default"] for o in menu["options"]), "their picks are undone"

        edits = len(fake.edits)
        taken = await fake.interact(3, pick, ANSWERER, fake.channel_id, prompt)
        assert taken.type == 6
        edit = await until(lambda: [b for mid, b in fake.edits[edits:] if mid == prompt["id"]])
        menu = edit[-1]["components"][1]["components"][0]
        assert [o["label"] for o in menu["options"] if o["default"]] == ["Lint", "Build"]
        assert "→ Lint, Build" in edit[-1]["content"]


async def test_other_opens_one_input_per_question(tmp_path: Path, fake: FakeDiscord) -> None:
    async with running(config(tmp_path, fake), env(fake)) as r, r.client() as client:
        await client.create(TWO)
        prompt = await prompt_in(fake, r)
        other = prompt["components"][2]["components"][1]
        modal = await fake.click(prompt, other["custom_id"], ANSWERER)
        assert modal.type == 9
        inputs = [c["component"] for c in modal.data["components"]]
        assert [i["custom_id"] for i in inputs] == ["ab:answer:0", "ab:answer:1"]
        assert [c["label"] for c in modal.data["components"]] == ["Env", "Steps"]
        assert not any(i["required"] for i in inputs), "answer any of them"
