"""A bridge's e-mail surface wired to real servers: aiosmtpd (sending) and Dovecot (replies).

`reply(...)` writes a reply as a mail client would (one of the named files under `replies/`),
adds the headers a delivering mail server adds, and APPENDs it to the mailbox askbridge reads.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from tests.adapters.email.dovecot import Dovecot, dovecot
from tests.adapters.email.smtpd import SMTP_PASSWORD, SMTP_USER, Outbox, smtp_server
from tests.harness import base_env, until

PERSON = "ana@example.org"
BOSS = "boss@example.org"
INBOUND_SECRET = "email-inbound-secret-0123"
REPLIES = Path(__file__).parent / "replies"


def mta_headers(to: str) -> bytes:
    """What a delivering mail server puts on top (the mailbox never sees a message without)."""
    return (f"Return-Path: <{PERSON}>\r\nDelivered-To: {to}\r\n"
            "Received: from mail.example.org (mail.example.org [192.0.2.10])\r\n"
            f"\tby mx.example.org with ESMTPS id 4Xk2; Mon, 30 Nov 2026 09:13:02 +0000\r\n"
            ).encode()


def reply_bytes(fixture: str, prompt: EmailMessage, answer: str, sender: str = PERSON,
                to: str | None = None) -> bytes:
    """The named reply fixture filled in for `prompt`: To its Reply-To, threaded under it."""
    to = to if to is not None else str(prompt["Reply-To"])
    text = (REPLIES / fixture).read_text(encoding="utf-8")
    fields = {"{TO}": to, "{FROM}": sender, "{ANSWER}": answer,
              "{IN_REPLY_TO}": str(prompt["Message-ID"]), "{SUBJECT}": str(prompt["Subject"]),
              "{MESSAGE_ID}": make_msgid(domain="mail.example.org")}
    for key, value in fields.items():
        text = text.replace(key, value)
    body = text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")
    return mta_headers(to) + body


@dataclass
class MailRig:
    outbox: Outbox
    server: Dovecot
    login: tuple[str, str]
    section: dict[str, Any]
    env: dict[str, str]

    def prompts(self, to: str = PERSON) -> list[EmailMessage]:
        return [m for m in self.outbox.to(to) if m.get_content_type() == "multipart/alternative"]

    async def deliver(self, raw: bytes) -> None:
        await asyncio.to_thread(self.server.append, self.login, raw)

    async def reply(self, answer: str, fixture: str = "gmail_en.eml", sender: str = PERSON,
                    prompt: EmailMessage | None = None) -> None:
        prompt = prompt or self.prompts()[-1]
        await self.deliver(reply_bytes(fixture, prompt, answer, sender))


async def watching(r: Any) -> None:
    """Until the mailbox is being watched (IDLE), so a reply appended now is one it sees (with
    no position kept yet, mail already in the box when watching starts is history)."""
    adapter = r.bridge.adapters["email"]
    await until(lambda: adapter.watcher is not None, timeout=15)
    await asyncio.wait_for(adapter.watcher.idling.wait(), 15)


def part(message: EmailMessage, kind: str = "plain") -> str:
    """The message's `text/<kind>` part, decoded."""
    found = message.get_body(preferencelist=(kind,))
    assert found is not None, f"no text/{kind} part"
    return str(found.get_content())


LINK = re.compile(r'href="(http://127\.0\.0\.1:\d+/e/[^"]+)"[^>]*>([^<]+)<')


def links(message: EmailMessage) -> dict[str, str]:
    """Caption → URL of every link in the HTML part."""
    html = part(message, "html")
    return {caption: url for url, caption in LINK.findall(html)}


def texts(rig: MailRig, to: str = PERSON) -> list[str]:
    """The text of every message sent to `to`."""
    return [part(m) for m in rig.outbox.to(to)]


def section(outbox: Outbox, server: Dovecot, **extra: Any) -> dict[str, Any]:
    return {"email": {
        "from": "askbridge <ask@example.org>", "reply_to": "ask+{token}@example.org",
        "smtp_host": "127.0.0.1", "smtp_port": outbox.port, "smtp_tls": "starttls",
        "smtp_user_env": "SMTP_USER", "smtp_password_env": "SMTP_PASSWORD",
        "imap_host": "127.0.0.1", "imap_port": server.imap_port, "imap_tls": "starttls",
        "imap_user_env": "IMAP_USER", "imap_password_env": "IMAP_PASSWORD",
        "inbound_secret_env": "EMAIL_INBOUND_SECRET", "answerers": [BOSS],
        "ca_file": str(server.certs.ca), "retry_base_seconds": 0.05, "timeout_seconds": 10,
        **extra}}


@asynccontextmanager
async def mail_rig(**extra: Any) -> AsyncIterator[MailRig]:
    server = await asyncio.to_thread(dovecot)
    login = await asyncio.to_thread(server.add_user)
    async with smtp_server(server.certs) as outbox:
        env = {**base_env(), "SMTP_USER": SMTP_USER, "SMTP_PASSWORD": SMTP_PASSWORD,
               "IMAP_USER": login[0], "IMAP_PASSWORD": login[1],
               "EMAIL_INBOUND_SECRET": INBOUND_SECRET}
        yield MailRig(outbox, server, login, section(outbox, server, **extra), env)
