"""Slack in Socket Mode end to end: real slack-bolt + slack_sdk against the fake Slack."""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path

from tests.adapters.slack.support import (
    ANSWERER,
    ESCAPED,
    TWO,
    answered,
    buttons,
    slack_config,
    slack_env,
    status_of,
)
from tests.fakes.slack import EXPIRED_TRIGGER, click_body, fake_slack, message_body, modal_body
from tests.harness import running, until
from tests.samples import DEPLOY


async def test_button_click_answers_and_updates_the_message(tmp_path: Path) -> None:
    async with fake_slack() as fake, \
            running(slack_config(tmp_path, fake), slack_env()) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(ESCAPED))
        message = await fake.wait_posted()
        assert message["channel"] == "C0123"
        assert [b["text"]["text"] for b in buttons(message)] == [
            "Staging (Recommended)", "Production", "Canary", "Other…", "Skip"]
        assert buttons(message)[0]["style"] == "primary"
        assert all("style" not in b for b in buttons(message)[1:])
        assert "safe &amp; quick" in message["blocks"][0]["text"]["text"]
        await fake.wait_connected()
        ack = await fake.send_envelope("interactive", click_body(message, "Production"))
        assert "envelope_id" in ack
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered(deploy_target=["Production"])
        await until(lambda: status_of(message))
        assert status_of(message) == "Answered: Production"
        assert buttons(message) == []
        assert fake.called("chat.postEphemeral") == []


async def test_other_opens_a_modal_whose_text_is_the_answer(tmp_path: Path) -> None:
    async with fake_slack() as fake, \
            running(slack_config(tmp_path, fake), slack_env()) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(DEPLOY))
        message = await fake.wait_posted()
        await fake.send_envelope("interactive", click_body(message, "Other…"))
        opened = await fake.wait_call("views.open")
        assert opened["trigger_id"] == "1234567890.0001.abcdef"
        await fake.send_envelope("interactive", modal_body(opened["view"], "the moon & back"))
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered(deploy_target=["the moon & back"])
        await until(lambda: status_of(message))
        assert status_of(message) == "Answered"


async def test_other_without_a_trigger_asks_for_a_thread_reply(tmp_path: Path) -> None:
    async with fake_slack() as fake, \
            running(slack_config(tmp_path, fake), slack_env()) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(DEPLOY))
        message = await fake.wait_posted()
        await fake.send_envelope("interactive",
                                 click_body(message, "Other…", trigger_id=EXPIRED_TRIGGER))
        told = await fake.wait_call("chat.postEphemeral")
        assert told["user"] == ANSWERER and told["thread_ts"] == message["ts"]
        assert "thread" in told["text"]
        await fake.send_envelope("events_api", message_body(
            "C0123", "somewhere &lt;else&gt;", thread_ts=message["ts"]))
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered(deploy_target=["somewhere <else>"])


async def test_skip_ends_the_prompt(tmp_path: Path) -> None:
    async with fake_slack() as fake, \
            running(slack_config(tmp_path, fake), slack_env()) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(DEPLOY))
        message = await fake.wait_posted()
        await fake.send_envelope("interactive", click_body(message, "Skip"))
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == {"status": "no_answer", "reason": "skipped"}
        await until(lambda: status_of(message))
        assert status_of(message) == "Skipped"


async def test_thread_reply_answers_a_multi_question_prompt(tmp_path: Path) -> None:
    async with fake_slack() as fake, \
            running(slack_config(tmp_path, fake, native="single"), slack_env()) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(TWO))
        message = await fake.wait_posted()
        assert "blocks" not in fake.called("chat.postMessage")[0]
        assert "Which &lt;env&gt; &amp; region?" in message["text"]
        await fake.send_envelope("events_api", message_body(
            "C0123", "1: 2", thread_ts=message["ts"]))
        still = await fake.wait_call("chat.postEphemeral")
        assert still["thread_ts"] == message["ts"] and "Checks" in still["text"]
        await fake.send_envelope("events_api", message_body(
            "C0123", "2: 1,3", thread_ts=message["ts"]))
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered(env=["Production"], checks=["Lint", "Build"])
        await until(lambda: status_of(message))
        assert status_of(message) == "Answered: Production, Lint, Build"


async def test_channel_reply_by_number_and_others_are_ignored(tmp_path: Path) -> None:
    async with fake_slack() as fake, \
            running(slack_config(tmp_path, fake), slack_env()) as r, r.client() as client:
        ask = asyncio.create_task(client.ask(DEPLOY))
        await fake.wait_posted()
        await fake.send_envelope("events_api", message_body("C0123", "2", user="U0999"))
        await fake.send_envelope("events_api", message_body("C0123", "2"))
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered(deploy_target=["Production"])
        view = await client.question((await client.timeline())[0]["id"])
        assert view["answeredBy"] == {"surface": "slack:C0123", "user": ANSWERER}


async def test_unauthorized_click_is_refused_and_the_question_stays_pending(
        tmp_path: Path) -> None:
    async with fake_slack() as fake, \
            running(slack_config(tmp_path, fake), slack_env()) as r, r.client() as client:
        created = await client.create(DEPLOY)
        message = await fake.wait_posted()
        stale = copy.deepcopy(message)  # what a second open client still shows
        await fake.send_envelope("interactive", click_body(message, "Canary", user="U0999"))
        refusal = await fake.wait_call("chat.postEphemeral")
        assert refusal["user"] == "U0999" and refusal["channel"] == "C0123"
        assert "only the person" in refusal["text"]
        assert (await client.question(created["id"]))["status"] == "pending"
        assert status_of(message) is None
        await fake.send_envelope("interactive", click_body(message, "Canary"))
        result = await client.result(created["id"], wait=10)
        assert result is not None and result.to_json() == answered(deploy_target=["Canary"])
        await until(lambda: status_of(message))
        await fake.send_envelope("interactive", click_body(stale, "Production"))
        late = await fake.wait_call("chat.postEphemeral", 2)
        assert late["user"] == ANSWERER and "already ended" in late["text"]


async def test_a_dm_user_may_answer_without_being_listed(tmp_path: Path) -> None:
    async with fake_slack() as fake, running(
            slack_config(tmp_path, fake, surfaces=("slack:D0777",)), slack_env()) as r, \
            r.client() as client:
        ask = asyncio.create_task(client.ask(DEPLOY))
        message = await fake.wait_posted()
        await fake.send_envelope("interactive", click_body(message, "Canary", user="U0555"))
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered(deploy_target=["Canary"])


async def test_click_after_a_restart_still_answers(tmp_path: Path) -> None:
    async with fake_slack() as fake:
        config = slack_config(tmp_path, fake)
        async with running(config, slack_env()) as r, r.client() as client:
            created = await client.create(DEPLOY)
            message = await fake.wait_posted()
        async with running(config, slack_env()) as r, r.client() as client:
            await fake.wait_connected(2)
            await fake.send_envelope("interactive", click_body(message, "Staging (Recommended)"))
            result = await client.result(created["id"], wait=10)
            assert result is not None
            assert result.to_json() == answered(deploy_target=["Staging (Recommended)"])
            await until(lambda: status_of(message))
            assert status_of(message) == "Answered: Staging (Recommended)"


async def test_a_thread_surface_gets_the_prompt_in_its_thread(tmp_path: Path) -> None:
    surface = "slack:C0123/1700000000.000100"
    async with fake_slack() as fake, running(
            slack_config(tmp_path, fake, surfaces=(surface,), native="single"), slack_env()) as r, \
            r.client() as client:
        ask = asyncio.create_task(client.ask(TWO))
        message = await fake.wait_posted()
        assert message["thread_ts"] == "1700000000.000100"
        await fake.send_envelope("events_api", message_body(
            "C0123", "1: staging\n2: test", thread_ts="1700000000.000100"))
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == answered(env=["Staging"], checks=["Test"])
        await until(lambda: status_of(message))
