"""A real SMTP server (aiosmtpd) on 127.0.0.1 in the test's event loop: STARTTLS required, AUTH
required after it, every accepted message kept for the test to read."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

from tests.adapters.email.certs import Certs
from tests.harness import free_port

SMTP_USER, SMTP_PASSWORD = "askbridge", "smtp-password-0123"


@dataclass
class Outbox:
    """What the server accepted: each message, parsed, with its envelope recipients."""

    port: int
    messages: list[EmailMessage] = field(default_factory=list)
    recipients: list[list[str]] = field(default_factory=list)
    logins: int = 0

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m, rcpt in zip(self.messages, self.recipients, strict=True)
                if address in rcpt]

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        raw = envelope.original_content or envelope.content
        message = BytesParser(policy=policy.default).parsebytes(raw)
        assert isinstance(message, EmailMessage)
        self.messages.append(message)
        self.recipients.append([r.lower() for r in envelope.rcpt_tos])
        return "250 OK"


def _authenticator(outbox: Outbox) -> Any:
    def check(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        good = (isinstance(data, LoginPassword) and data.login.decode() == SMTP_USER
                and data.password.decode() == SMTP_PASSWORD)
        if good:
            outbox.logins += 1
        return AuthResult(success=good, handled=False)  # False: the server answers 535 itself

    return check


@asynccontextmanager
async def smtp_server(certs: Certs) -> AsyncIterator[Outbox]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certs.cert, certs.key)
    outbox = Outbox(free_port())
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(outbox, hostname="127.0.0.1", tls_context=context, require_starttls=True,
                     authenticator=_authenticator(outbox), auth_required=True,
                     auth_require_tls=True),
        "127.0.0.1", outbox.port)
    try:
        yield outbox
    finally:
        server.close()
        await server.wait_closed()
