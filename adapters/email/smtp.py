"""Sending over SMTP (aiosmtplib): STARTTLS or implicit TLS, AUTH when a login is configured.

Library: aiosmtplib — the maintained asyncio SMTP client (typed, STARTTLS and TLS, every AUTH
method servers offer). One connection per message: prompts are few and far between, and a
connection kept open would be dropped by most servers after a minute of silence anyway.
"""

from __future__ import annotations

import ssl
from email.message import EmailMessage

import aiosmtplib
import structlog

from adapters.email.config import EmailConfig
from bridge import DeliveryError

log = structlog.get_logger("askbridge.email")


def tls_context(config: EmailConfig) -> ssl.SSLContext:
    """The system's trust store, or `ca_file` alone (a server with a private CA)."""
    return ssl.create_default_context(cafile=config.ca_file)


class Mailer:
    def __init__(self, config: EmailConfig, login: tuple[str, str] | None,
                 context: ssl.SSLContext) -> None:
        self.config = config
        self._login = login
        self._tls = context

    def _client(self) -> aiosmtplib.SMTP:
        c = self.config
        user, password = self._login or (None, None)
        return aiosmtplib.SMTP(
            hostname=c.smtp_host, port=c.smtp_port_or_default, username=user, password=password,
            use_tls=c.smtp_tls == "tls", start_tls=c.smtp_tls == "starttls",
            tls_context=self._tls if c.smtp_tls != "none" else None,
            timeout=c.timeout_seconds)

    async def send(self, message: EmailMessage) -> None:
        """Send one message; `DeliveryError` saying what the server or the network refused."""
        try:
            async with self._client() as smtp:
                await smtp.send_message(message)
        except aiosmtplib.SMTPAuthenticationError as exc:
            raise DeliveryError(f"the SMTP server refused the login ({exc.code} "
                                f"{exc.message.strip()}); check smtp_user_env and "
                                "smtp_password_env") from None
        except aiosmtplib.SMTPRecipientsRefused as exc:
            refused = ", ".join(r.recipient for r in exc.recipients)
            raise DeliveryError(f"the SMTP server refused the recipient {refused}") from None
        except aiosmtplib.SMTPResponseException as exc:
            raise DeliveryError(f"the SMTP server answered {exc.code} "
                                f"{exc.message.strip()}") from None
        except (aiosmtplib.SMTPException, OSError, ssl.SSLError) as exc:
            raise DeliveryError(f"the SMTP server {self.config.smtp_host}:"
                                f"{self.config.smtp_port_or_default} could not be reached "
                                f"({type(exc).__name__}: {exc})") from None

    async def check(self) -> str:
        """`askbridge doctor`: connect, (STARTTLS,) log in, and quit."""
        try:
            async with self._client():
                pass
        except aiosmtplib.SMTPAuthenticationError as exc:
            raise DeliveryError(f"SMTP login failed: the server answered {exc.code} "
                                f"{exc.message.strip()}; check smtp_user_env and "
                                "smtp_password_env") from None
        except (aiosmtplib.SMTPException, OSError, ssl.SSLError) as exc:
            raise DeliveryError(f"SMTP: {self.config.smtp_host}:"
                                f"{self.config.smtp_port_or_default} could not be reached or "
                                f"refused TLS ({type(exc).__name__}: {exc})") from None
        how = "logged in" if self._login else "connected (no login configured)"
        return f"SMTP {how} at {self.config.smtp_host}:{self.config.smtp_port_or_default}"
