"""The e-mail adapter: prompts by SMTP, replies by IMAP IDLE or a provider's webhook, answer links."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from adapters.email.config import EmailConfig
from bridge import AdapterContext, AdapterPlugin, ConfigError, adapter_section, env_secret

if TYPE_CHECKING:  # aiosmtplib and aioimaplib load only when [email] is configured
    from adapters.email.adapter import EmailAdapter


def _login(ctx: AdapterContext, user_env: str | None, password_env: str | None,
           what: str) -> tuple[str, str] | None:
    if user_env is None or password_env is None:
        return None
    return (env_secret(ctx, user_env, f"[email] reads the {what} user name from ${user_env}, "
                       "which is not set; export the mailbox's login there."),
            env_secret(ctx, password_env, f"[email] reads the {what} password from "
                       f"${password_env}, which is not set; export the password (or an app "
                       "password) there."))


def create(ctx: AdapterContext) -> EmailAdapter | None:
    config = adapter_section(ctx, "email", EmailConfig)
    if config is None:
        return None
    if config.ca_file and not Path(config.ca_file).is_file():
        raise ConfigError(f"[email] ca_file = {config.ca_file!r} is not a readable file; point it "
                          "at a PEM CA bundle, or remove it to trust the system's CAs.")
    smtp = _login(ctx, config.smtp_user_env, config.smtp_password_env, "SMTP")
    imap = _login(ctx, config.imap_user_env, config.imap_password_env, "IMAP")
    secret = None if config.inbound_secret_env is None else env_secret(
        ctx, config.inbound_secret_env, (
            f"[email] reads the inbound route's secret from ${config.inbound_secret_env}, which "
            "is not set; export a long random string there (your provider signs with it too)."))
    from adapters.email.adapter import EmailAdapter

    return EmailAdapter(config, ctx.base_url, smtp, imap, secret, ctx.state)


plugin = AdapterPlugin(platform="email", create=create, sections=("email",))

__all__ = ["EmailConfig", "create", "plugin"]
