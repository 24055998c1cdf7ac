"""`[email]`: the sender, the SMTP and IMAP servers, the reply address with its token, answerers."""

from __future__ import annotations

import re
from email.headerregistry import Address
from email.utils import parseaddr
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from bridge import Locale

TlsMode = Literal["starttls", "tls", "none"]
SMTP_PORTS = {"starttls": 587, "tls": 465, "none": 25}
IMAP_PORTS = {"starttls": 143, "tls": 993, "none": 143}
ADDRESS = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$|^[^@\s<>]+@(localhost|127\.0\.0\.1)$")


def plain_address(value: str) -> str:
    """`Ana <Ana@Example.org>` → `ana@example.org`: how addresses are compared everywhere."""
    return parseaddr(value)[1].strip().lower()


class EmailConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    sender: str = Field(alias="from")
    """`askbridge <ask@example.org>`: the From of every message askbridge sends."""
    smtp_host: str
    smtp_port: int | None = Field(default=None, ge=1, le=65535)
    """Default by `smtp_tls`: 587 (starttls), 465 (tls), 25 (none)."""
    smtp_tls: TlsMode = "starttls"
    smtp_user_env: str | None = None
    smtp_password_env: str | None = None
    reply_to: str
    """`ask+{token}@example.org`: replies come back to this address with the delivery's token."""
    imap_host: str | None = None
    """Where replies are read (IMAP IDLE); without it, replies come only by the webhook route."""
    imap_port: int | None = Field(default=None, ge=1, le=65535)
    """Default by `imap_tls`: 993 (tls), 143 (starttls, none)."""
    imap_tls: TlsMode = "tls"
    imap_user_env: str | None = None
    imap_password_env: str | None = None
    mailbox: str = "INBOX"
    inbound_secret_env: str | None = None
    """Turns on `POST /v1/channels/email/inbound` (raw messages signed with this secret)."""
    link_base: str | None = None
    """The public URL of this server for the links in a prompt; default: the server's own."""
    answerers: list[str] = Field(default_factory=list)
    """Who may answer besides the address a prompt went to (`ana@example.org`)."""
    notify_final: bool = False
    """Mail a short status when a question ends (e-mail cannot be edited)."""
    locale: Locale | None = None
    """The language of this section's messages (`en`, `id`); default: the agent's."""
    ca_file: str | None = None
    """A CA bundle (PEM) to trust for SMTP and IMAP TLS instead of the system's."""
    timeout_seconds: float = Field(default=30.0, gt=0, le=300)
    """How long one SMTP or IMAP command may take."""
    idle_seconds: int = Field(default=600, ge=5, le=1740)
    """IDLE is renewed this often (servers drop it after 30 minutes)."""
    retry_base_seconds: float = Field(default=1.0, gt=0, le=60)
    """First pause before reconnecting to IMAP; it doubles up to five minutes."""
    max_message_bytes: int = Field(default=1_048_576, ge=16_384, le=50_000_000)
    """How much of a reply is fetched; the text comes first, attachments beyond are left."""

    @field_validator("sender")
    @classmethod
    def _sender(cls, value: str) -> str:
        if not ADDRESS.match(plain_address(value)):
            raise ValueError("write the sender as an address, like askbridge <ask@example.org>")
        return value

    @field_validator("reply_to")
    @classmethod
    def _reply_to(cls, value: str) -> str:
        local, _, domain = value.partition("@")
        if local.count("{token}") != 1 or not domain or "{" in domain:
            raise ValueError("write the reply address with {token} in its local part, "
                             "like ask+{token}@example.org")
        return value

    @field_validator("answerers")
    @classmethod
    def _answerers(cls, value: list[str]) -> list[str]:
        bad = [v for v in value if not ADDRESS.match(plain_address(v))]
        if bad:
            raise ValueError(f"answerers must be e-mail addresses, not {bad[0]!r}")
        return [plain_address(v) for v in value]

    @field_validator("link_base")
    @classmethod
    def _link_base(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("https://", "http://")):
            raise ValueError("write link_base as a URL, like https://askbridge.example.org")
        return value.rstrip("/") if value else value

    @model_validator(mode="after")
    def _pairs(self) -> EmailConfig:
        if (self.smtp_user_env is None) != (self.smtp_password_env is None):
            raise ValueError("set both smtp_user_env and smtp_password_env, or neither")
        if self.imap_host and not (self.imap_user_env and self.imap_password_env):
            raise ValueError("imap_host needs imap_user_env and imap_password_env")
        return self

    @property
    def sender_address(self) -> Address:
        name, addr = parseaddr(self.sender)
        return Address(display_name=name, addr_spec=addr)

    @property
    def smtp_port_or_default(self) -> int:
        return self.smtp_port or SMTP_PORTS[self.smtp_tls]

    @property
    def imap_port_or_default(self) -> int:
        return self.imap_port or IMAP_PORTS[self.imap_tls]
