"""Replies as real mail clients write them reach the broker through Dovecot and IMAP IDLE."""

from __future__ import annotations

import asyncio
import re
import secrets
from pathlib import Path

import pytest

from tests.adapters.email.rig import PERSON, mail_rig, texts, watching
from tests.harness import make_config, running, until
from tests.samples import DEPLOY

CLIENTS = ["gmail_en.eml", "gmail_id.eml", "outlook_en.eml", "outlook_id.eml", "apple_en.eml",
           "apple_id.eml", "thunderbird_en.eml", "thunderbird_id.eml", "html_only_outlook.eml",
           "outlook_nosig_en.eml"]


@pytest.mark.parametrize("client", CLIENTS)
async def test_a_reply_from_each_mail_client_answers(client: str, tmp_path: Path) -> None:
    """The person's words only: the quoted prompt (which lists every option) and the signature
    are stripped, or `2` would come with `1) Staging … 3) Canary` behind it."""
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.client() as client_:
            await watching(r)
            ask = asyncio.create_task(client_.ask(DEPLOY))
            await until(lambda: rig.prompts())
            answer = "lewati" if client.endswith("_id.eml") else "2"
            await rig.reply(answer, client)
            result = await asyncio.wait_for(ask, 20)
            if answer == "lewati":
                assert (result.status, result.reason) == ("no_answer", "skipped")
            else:
                assert result.answer_map() == {"deploy_target": ["Production"]}
            told = await until(lambda: [t for t in texts(rig) if "Production." in t or
                                        "Skipped." in t or "Dilewati" in t])
            assert told


async def test_free_text_is_never_echoed_back(tmp_path: Path) -> None:
    async with mail_rig(notify_final=True) as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.client() as client:
            await watching(r)
            ask = asyncio.create_task(client.ask(DEPLOY))
            await until(lambda: rig.prompts())
            await rig.reply("ship it to the secret-moon-cluster", "outlook_en.eml")
            result = await asyncio.wait_for(ask, 20)
            assert result.answer_map() == {"deploy_target": ["ship it to the secret-moon-cluster"]}
            await until(lambda: len(rig.outbox.to(PERSON)) >= 3)  # prompt, thanks, status
            for message in rig.outbox.messages:
                assert "secret-moon" not in message.as_string()


async def test_a_restart_neither_loses_nor_repeats_a_reply(tmp_path: Path) -> None:
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.client() as client:
            await watching(r)
            qid = (await client.create(DEPLOY))["id"]
            await until(lambda: rig.prompts())
        await rig.reply("3")  # arrives while askbridge is down
        async with running(config, rig.env) as r, r.client() as client:
            result = await client.result(qid, wait=20)
            assert result is not None and result.answer_map() == {"deploy_target": ["Canary"]}
            await until(lambda: any("Canary." in t for t in texts(rig)))
        sent = len(rig.outbox.messages)
        async with running(config, rig.env) as r:
            await watching(r)  # caught up: every message after the kept UID was looked at
            assert len(rig.outbox.messages) == sent, "the answered reply is not read again"
            kept = await r.bridge.store.state_get("email", "uid:INBOX")
            assert kept is not None and re.fullmatch(r"\d+:1", kept)


async def test_the_mailbox_is_watched_again_after_a_cut_and_after_a_refused_login(
        tmp_path: Path) -> None:
    async with mail_rig() as rig:
        late = (f"late{secrets.token_hex(4)}", secrets.token_urlsafe(12))
        env = {**rig.env, "IMAP_USER": late[0], "IMAP_PASSWORD": late[1]}
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, env) as r, r.client() as client:
            qid = (await client.create(DEPLOY))["id"]
            await until(lambda: rig.prompts())
            await asyncio.to_thread(rig.server.add_user, late)  # refused until now: backoff
            rig.login = late
            await watching(r)
            await asyncio.to_thread(rig.server.kick, late)
            watcher = r.bridge.adapters["email"].watcher  # type: ignore[attr-defined]
            await until(lambda: not watcher.idling.is_set())
            await watching(r)  # reconnected
            await rig.reply("canary")
            result = await client.result(qid, wait=20)
            assert result is not None and result.answer_map() == {"deploy_target": ["Canary"]}
