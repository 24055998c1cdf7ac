"""Discord end to end: the real discord.py against a fake gateway + REST, a real bridge in-process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bridge import BridgeConfig
from tests.fakes.discord import FakeDiscord
from tests.harness import base_env, make_config, running, until

ANSWERER = 4001
STRANGER = 4002
DEPLOY = {
    "questions": [{
        "id": "deploy_target", "header": "Deploy", "question": "Where should I deploy?",
        "options": [{"label": "Staging (Recommended)"}, {"label": "Production"},
                    {"label": "Canary", "description": "5% of traffic first"}],
    }],
}
TWO = {
    "questions": [
        {"id": "env", "header": "Env", "question": "Which environment?",
         "options": [{"label": "Staging"}, {"label": "Production"}]},
        {"id": "steps", "header": "Steps", "question": "Which steps should run?",
         "multiSelect": True,
         "options": [{"label": "Lint"}, {"label": "Test"}, {"label": "Build"}]},
    ],
}


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    server = await FakeDiscord().start()
    yield server
    await server.stop()


def config(tmp: Path, fake: FakeDiscord, channel: int | None = None,
           **extra: Any) -> BridgeConfig:
    section = {"token_env": "DISCORD_BOT_TOKEN", "api_base": fake.api_base,
               "gateway_url": fake.gateway_url, "answerers": [ANSWERER],
               "guild_ready_timeout": 0.05, **extra}
    return make_config(tmp, surfaces=[f"discord:{channel or fake.channel_id}"], discord=section)


def env(fake: FakeDiscord) -> dict[str, str]:
    return {**base_env(), "DISCORD_BOT_TOKEN": fake.token}


async def prompt_in(fake: FakeDiscord, channel: int | None = None) -> dict[str, Any]:
    messages = await until(lambda: fake.in_channel(channel or fake.channel_id))
    return dict(messages[-1])


def ids(message: dict[str, Any]) -> list[str]:
    return [b["custom_id"] for row in message["components"] for b in row["components"]]


async def finalized(fake: FakeDiscord, message_id: str) -> dict[str, Any]:
    edits = await until(lambda: [body for mid, body in fake.edits if mid == message_id])
    return dict(edits[-1])


async def test_button_click_answers_and_finalizes(tmp_path: Path, fake: FakeDiscord) -> None:
    async with running(config(tmp_path, fake), env(fake)) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(DEPLOY))
        prompt = await prompt_in(fake)
        buttons = [b for row in prompt["components"] for b in row["components"]]
        assert [b["label"] for b in buttons] == [
            "Staging (Recommended)", "Production", "Canary", "Other…", "Skip"]
        assert [b["style"] for b in buttons] == [1, 2, 2, 2, 2]
        assert prompt["content"].startswith("**Deploy**\nWhere should I deploy?")
        qid = ids(prompt)[0].split(":")[1]
        assert ids(prompt) == [f"ab:{qid}:0", f"ab:{qid}:1", f"ab:{qid}:2", f"ab:{qid}:o",
                               f"ab:{qid}:s"]

        answer = await fake.click(prompt, f"ab:{qid}:1", ANSWERER)
        assert answer.type == 4
        assert answer.data["flags"] == 64  # ephemeral
        assert answer.data["content"] == "Thanks, recorded: Production."

        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == {
            "status": "answered",
            "answers": {"answers": {"deploy_target": {"answers": ["Production"]}}},
        }
        edit = await finalized(fake, prompt["id"])
        assert edit["components"] == []
        assert edit["content"].startswith("**Deploy**\nWhere should I deploy?")
        assert edit["content"].endswith("**Answered: Production**")

        late = await fake.click(prompt, f"ab:{qid}:0", ANSWERER)
        assert (late.type, late.data["flags"]) == (4, 64)
        assert late.data["content"] == "This question has already ended."
    assert fake.unknown == []
