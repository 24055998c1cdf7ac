"""Discord end to end: the real discord.py against a fake gateway + REST, a real bridge in-process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from adapters.discord import interactions
from bridge.runtime.tally import TALLY
from tests.adapters.discord.support import ANSWERER, STRANGER, TWO, config, env, prompt_in
from tests.fakes.discord import FakeDiscord
from tests.harness import running, until
from tests.samples import DEPLOY


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    server = await FakeDiscord().start()
    yield server
    await server.stop()


def ids(message: dict[str, Any]) -> list[str]:
    return [b["custom_id"] for row in message["components"] for b in row["components"]]


async def finalized(fake: FakeDiscord, message_id: str) -> dict[str, Any]:
    edits = await until(lambda: [body for mid, body in fake.edits if mid == message_id])
    return dict(edits[-1])


async def test_button_click_answers_and_finalizes(tmp_path: Path, fake: FakeDiscord) -> None:
    async with running(config(tmp_path, fake), env(fake)) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(DEPLOY))
        prompt = await prompt_in(fake, r)
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


async def test_other_opens_a_modal_whose_text_answers(tmp_path: Path, fake: FakeDiscord) -> None:
    async with running(config(tmp_path, fake), env(fake)) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(DEPLOY))
        prompt = await prompt_in(fake, r)
        qid = ids(prompt)[0].split(":")[1]

        opened = await fake.click(prompt, f"ab:{qid}:o", ANSWERER)
        assert opened.type == 9  # MODAL
        assert opened.data["custom_id"] == f"ab:{qid}:m"
        assert opened.data["title"] == "Deploy: your answer"
        label = opened.data["components"][0]
        assert (label["type"], label["component"]["custom_id"]) == (18, "ab:answer")

        done = await fake.submit_modal(f"ab:{qid}:m", "deploy to the moon", ANSWERER,
                                       fake.channel_id)
        assert (done.type, done.data["flags"]) == (4, 64)
        assert done.data["content"] == "Thanks, your answer was recorded."
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == {
            "status": "answered",
            "answers": {"answers": {"deploy_target": {"answers": ["deploy to the moon"]}}},
        }
        edit = await finalized(fake, prompt["id"])
        assert edit["content"].endswith("**Answered**")  # free text is never echoed
        assert "moon" not in edit["content"]


async def test_skip_ends_the_prompt(tmp_path: Path, fake: FakeDiscord) -> None:
    async with running(config(tmp_path, fake), env(fake)) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(DEPLOY))
        prompt = await prompt_in(fake, r)
        qid = ids(prompt)[0].split(":")[1]
        skipped = await fake.click(prompt, f"ab:{qid}:s", ANSWERER)
        assert skipped.data["content"] == "Skipped."
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == {"status": "no_answer", "reason": "skipped"}
        edit = await finalized(fake, prompt["id"])
        assert edit["components"] == [] and edit["content"].endswith("**Skipped**")


async def test_several_questions_take_a_text_reply(tmp_path: Path, fake: FakeDiscord) -> None:
    async with running(config(tmp_path, fake, native="single"), env(fake)) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(TWO))
        prompt = await prompt_in(fake, r)
        assert prompt["components"] == []
        assert "1. Env: Which environment?" in prompt["content"]
        assert "Expires at" in prompt["content"]

        await fake.user_message(fake.channel_id, ANSWERER, "1: 2", reply_to=prompt)
        partial = await until(lambda: [m for m in fake.in_channel(fake.channel_id)
                                       if "message_reference" in m])
        assert "Still needed: 2. Steps" in partial[0]["content"]

        await fake.user_message(fake.channel_id, ANSWERER, "2: 1,3", reply_to=prompt)
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == {"status": "answered", "answers": {"answers": {
            "env": {"answers": ["Production"]}, "steps": {"answers": ["Lint", "Build"]}}}}
        edit = await finalized(fake, prompt["id"])
        assert edit["content"].endswith("**Answered: Production, Lint, Build**")
        assert "Expires" not in edit["content"]
    # without text_replies only non-privileged intents: GUILDS | GUILD_MESSAGES | DM_MESSAGES
    assert fake.identifies[0]["intents"] == 1 | 1 << 9 | 1 << 12


async def test_text_replies_read_plain_messages(tmp_path: Path, fake: FakeDiscord) -> None:
    cfg = config(tmp_path, fake, text_replies=True, native="single")
    async with running(cfg, env(fake)) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(TWO))
        await prompt_in(fake, r)
        stranger = await fake.user_message(fake.channel_id, STRANGER, "1: 1\n2: 2")
        mine = await fake.user_message(fake.channel_id, ANSWERER, "1: 1\n2: 2")
        result = await asyncio.wait_for(ask, 10)
        replies = await until(lambda: [str(m["message_reference"]["message_id"]) for m in
                                       fake.in_channel(fake.channel_id)
                                       if "message_reference" in m])
        assert replies == [mine["id"]] and stranger["id"] not in replies  # chatter left alone
        assert result.to_json() == {"status": "answered", "answers": {"answers": {
            "env": {"answers": ["Staging"]}, "steps": {"answers": ["Test"]}}}}
        view = await client.question(str((await r.bridge.store.timeline(
            "assistant", "main"))[0].id))  # type: ignore[arg-type]
        assert view["answeredBy"] == {"surface": f"discord:{fake.channel_id}",
                                      "user": str(ANSWERER)}
    assert fake.identifies[0]["intents"] == 1 | 1 << 9 | 1 << 12 | 1 << 15  # + MESSAGE_CONTENT


async def test_someone_else_is_refused_and_the_question_stays(
        tmp_path: Path, fake: FakeDiscord) -> None:
    async with running(config(tmp_path, fake), env(fake)) as r, r.client() as client:
        created = await client.create(DEPLOY)
        prompt = await prompt_in(fake, r)
        refused = await fake.click(prompt, f"ab:{created['id']}:0", STRANGER)
        assert (refused.type, refused.data["flags"]) == (4, 64)
        assert refused.data["content"] == "Sorry, only the person this question is for can answer it."
        assert (await client.question(created["id"]))["status"] == "pending"
        assert fake.edits == []

        await fake.click(prompt, f"ab:{created['id']}:0", ANSWERER)
        result = await client.result(created["id"], wait=10)
        assert result is not None and result.to_json()["answers"] == {
            "answers": {"deploy_target": {"answers": ["Staging (Recommended)"]}}}


async def test_the_dm_user_may_answer(tmp_path: Path, fake: FakeDiscord) -> None:
    cfg = config(tmp_path, fake, channel=fake.dm_channel_id, answerers=[])
    async with running(cfg, env(fake)) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(DEPLOY))
        prompt = await prompt_in(fake, r, fake.dm_channel_id)
        qid = ids(prompt)[0].split(":")[1]
        await fake.click(prompt, f"ab:{qid}:2", fake.dm_user_id)
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json()["answers"] == {"answers": {"deploy_target": {"answers": ["Canary"]}}}


@pytest.mark.parametrize("loss", ["op7", "drop"])
async def test_gateway_loss_keeps_the_pending_question(
        tmp_path: Path, fake: FakeDiscord, loss: str) -> None:
    async with running(config(tmp_path, fake), env(fake)) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(DEPLOY))
        prompt = await prompt_in(fake, r)
        qid = ids(prompt)[0].split(":")[1]
        # op 7 (Discord asks to reconnect) or a broken connection: discord.py RESUMEs either way
        await (fake.reconnect() if loss == "op7" else fake.drop())
        await until(lambda: fake.resumes == 1)
        await fake.click(prompt, f"ab:{qid}:1", ANSWERER)
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json()["status"] == "answered"
    assert len(fake.identifies) == 1  # resumed, not re-identified


async def test_buttons_work_after_a_restart(tmp_path: Path, fake: FakeDiscord) -> None:
    cfg = config(tmp_path, fake)
    async with running(cfg, env(fake)) as r, r.client() as client:
        created = await client.create(DEPLOY)
        prompt = await prompt_in(fake, r)
    async with running(cfg, env(fake)) as r, r.client() as client:
        assert (await client.question(created["id"]))["status"] == "pending"
        answer = await fake.click(prompt, f"ab:{created['id']}:1", ANSWERER)
        assert answer.data["content"] == "Thanks, recorded: Production."
        result = await client.result(created["id"], wait=10)
        assert result is not None and result.to_json()["status"] == "answered"
        edit = await finalized(fake, prompt["id"])
        assert edit["content"].endswith("**Answered: Production**")
    assert len(fake.identifies) == 2


async def test_a_rate_limited_send_is_retried_and_counted(
        tmp_path: Path, fake: FakeDiscord) -> None:
    fake.rate_limit_next = 1
    counted = TALLY.rate_limited["discord"]
    with capture_logs() as seen:
        async with running(config(tmp_path, fake), env(fake)) as r, r.client() as client:
            created = await client.create(DEPLOY)
            prompt = await prompt_in(fake, r)
            assert len([p for p in fake.posts if p["channel"] == str(fake.channel_id)]) == 2
            view = await client.question(created["id"])
            assert view["status"] == "pending"
            assert prompt["id"] in str(view["deliveries"])
    assert [(e["platform"], e["method"], e["retry_after"]) for e in seen
            if e["event"] == "rate_limited"] == [("discord", "POST messages", 0.05)]
    assert TALLY.rate_limited["discord"] == counted + 1, "askbridge_rate_limited_total"


async def test_a_burst_to_one_channel_is_paced_by_discord_py_under_its_bucket(
        tmp_path: Path, fake: FakeDiscord) -> None:
    """The fake empties a channel's bucket after 5 messages in 5 s and says so in its headers;
    discord.py waits for the reset instead of meeting a 429."""
    async with running(config(tmp_path, fake), env(fake)) as r, r.client() as client:
        for n in range(7):
            await client.create(DEPLOY, session=f"s{n}")
        await until(lambda: len(fake.in_channel(fake.channel_id)) == 7, timeout=30)
        assert fake.refused == 0


async def test_a_channel_the_bot_may_not_post_in_is_undelivered(
        tmp_path: Path, fake: FakeDiscord) -> None:
    cfg = config(tmp_path, fake, channel=fake.forbidden_channel_id)
    async with running(cfg, env(fake)) as r, r.client() as client:
        result = await asyncio.wait_for(client.ask(DEPLOY), 10)
        assert result.to_json() == {"status": "no_answer", "reason": "undelivered"}
        question = (await r.bridge.store.timeline("assistant", "main"))[0]  # type: ignore[arg-type]
        view = await client.question(question.id)
        assert "may not post in Discord channel" in str(view["deliveries"])


async def test_a_slow_answer_is_deferred_then_followed_up(
        tmp_path: Path, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interactions, "ACK_SECONDS", 0.0)  # as if the store were slow
    async with running(config(tmp_path, fake), env(fake)) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(DEPLOY))
        prompt = await prompt_in(fake, r)
        qid = ids(prompt)[0].split(":")[1]
        other = await fake.click(prompt, f"ab:{qid}:o", ANSWERER)
        assert (other.type, other.data["flags"]) == (5, 64)  # deferred, ephemeral
        deferred = await fake.click(prompt, f"ab:{qid}:0", ANSWERER)
        assert deferred.type == 5
        followups = await until(lambda: [f["content"] for f in fake.followups])
        assert followups == ["Reply to the prompt with your own answer.",
                             "Thanks, recorded: Staging (Recommended)."][:len(followups)]
        await until(lambda: len(fake.followups) == 2)
        assert (await asyncio.wait_for(ask, 10)).to_json()["status"] == "answered"
        assert all(f["flags"] == 64 for f in fake.followups)


async def test_a_thread_takes_replies_and_refuses_others_politely(
        tmp_path: Path, fake: FakeDiscord) -> None:
    cfg = config(tmp_path, fake, channel=fake.thread_id, native="single")
    async with running(cfg, env(fake)) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(TWO))
        prompt = await prompt_in(fake, r, fake.thread_id)
        await fake.user_message(fake.thread_id, STRANGER, "1: 1\n2: 1", reply_to=prompt)
        refusal = await until(lambda: [m for m in fake.in_channel(fake.thread_id)
                                       if "message_reference" in m])
        assert refusal[0]["content"] == "Sorry, only the person this question is for can answer it."
        assert not ask.done()
        await fake.user_message(fake.thread_id, ANSWERER, "1: staging\n2: test, build",
                                reply_to=prompt)
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == {"status": "answered", "answers": {"answers": {
            "env": {"answers": ["Staging"]}, "steps": {"answers": ["Test", "Build"]}}}}
