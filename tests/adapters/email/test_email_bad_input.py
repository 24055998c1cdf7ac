"""Mail that must not answer, or must answer despite its shape: nothing lost, the loop lives on.

Each case is delivered to the real mailbox, then a good reply after it: the good one still
answers, which shows the IMAP loop went on past the bad one.
"""

from __future__ import annotations

import asyncio
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.email.rig import (
    BOSS,
    PERSON,
    MailRig,
    mail_rig,
    mta_headers,
    reply_bytes,
    texts,
    watching,
)
from tests.harness import make_config, running, until
from tests.samples import DEPLOY


def forged_from(rig: MailRig, prompt: EmailMessage) -> bytes:
    """A valid token, and a From whose display name claims the person's address."""
    return reply_bytes("gmail_en.eml", prompt, "2", sender="mallory@evil.example").replace(
        b"Ana Example <mallory@evil.example>", f'"{PERSON}" <mallory@evil.example>'.encode())


def without_token(rig: MailRig, prompt: EmailMessage) -> bytes:
    return reply_bytes("gmail_en.eml", prompt, "2", to="ask@example.org")


def forged_token(rig: MailRig, prompt: EmailMessage) -> bytes:
    """The person's own address, a token whose MAC was altered (a guess at another delivery)."""
    token = str(prompt["Reply-To"])
    changed = token[:-13] + ("b" if token[-13] == "a" else "a") + token[-12:]
    return reply_bytes("gmail_en.eml", prompt, "2", to=changed)


def malformed(rig: MailRig, prompt: EmailMessage) -> bytes:
    return reply_bytes("malformed_mime.eml", prompt, "2")


def automatic(rig: MailRig, prompt: EmailMessage) -> bytes:
    return reply_bytes("vacation_autoreply.eml", prompt, "2")


BAD = {"forged From": forged_from, "no token": without_token, "altered token": forged_token,
       "malformed MIME": malformed, "vacation reply": automatic}


@pytest.mark.parametrize("case", sorted(BAD))
async def test_bad_mail_answers_nothing_and_the_loop_goes_on(case: str, tmp_path: Path) -> None:
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.client() as client:
            await watching(r)
            qid = (await client.create(DEPLOY))["id"]
            [prompt] = await until(lambda: rig.prompts())
            await rig.deliver(BAD[case](rig, prompt))
            await rig.reply("3")  # the good one after it
            result = await client.result(qid, wait=20)
            assert result is not None and result.answer_map() == {"deploy_target": ["Canary"]}
            assert not rig.outbox.to("mallory@evil.example"), "nothing mailed to a forger"
            assert await asyncio.to_thread(rig.server.count, rig.login) == 2, "nothing deleted"


async def test_a_20_mb_attachment_still_answers(tmp_path: Path) -> None:
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.client() as client:
            await watching(r)
            ask = asyncio.create_task(client.ask(DEPLOY))
            [prompt] = await until(lambda: rig.prompts())
            reply = EmailMessage()
            reply["From"], reply["To"] = f"Ana <{PERSON}>", str(prompt["Reply-To"])
            reply["Subject"], reply["Message-ID"] = "Re: deploy", make_msgid()
            reply["In-Reply-To"] = str(prompt["Message-ID"])
            reply.set_content("production\n")
            reply.add_attachment(b"\x00\x01" * (10 * 1024 * 1024), maintype="application",
                                 subtype="octet-stream", filename="logs.bin")
            await rig.deliver(mta_headers(str(prompt["Reply-To"])) + reply.as_bytes())
            result = await asyncio.wait_for(ask, 60)
            assert result.answer_map() == {"deploy_target": ["Production"]}


async def test_an_ended_question_is_said_once_per_sender(tmp_path: Path) -> None:
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.client() as client:
            await watching(r)
            qid = (await client.create(DEPLOY))["id"]
            [prompt] = await until(lambda: rig.prompts())
            await client.cancel(qid)
            for sender in (PERSON, PERSON, BOSS, PERSON):
                await rig.reply("2", sender=sender, prompt=prompt)
            ended = "This question has already ended."
            await until(lambda: any(ended in t for t in texts(rig, BOSS)), timeout=20)
            await until(lambda: _caught_up(r, rig), timeout=20)
            assert sum(ended in t for t in texts(rig, PERSON)) == 1
            assert sum(ended in t for t in texts(rig, BOSS)) == 1


async def _caught_up(r: Any, rig: MailRig) -> bool:
    kept = await r.bridge.store.state_get("email", "uid:INBOX")
    return bool(kept) and kept.endswith(":4")


async def test_a_token_for_another_question_does_not_answer_this_one(tmp_path: Path) -> None:
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.client() as client:
            await watching(r)
            first = (await client.create(DEPLOY))["id"]
            [old] = await until(lambda: rig.prompts())
            await client.cancel(first)
            second = (await client.create(DEPLOY))["id"]
            await until(lambda: len(rig.prompts()) == 2)
            await rig.reply("2", prompt=old)  # the first question's thread and token
            await until(lambda: any("already ended" in t for t in texts(rig)), timeout=20)
            assert (await client.question(second))["status"] == "pending"
