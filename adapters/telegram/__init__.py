"""The Telegram adapter: inline keyboards for one-choice prompts, numbered text for the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.telegram.config import TelegramConfig
from bridge import AdapterContext, AdapterPlugin, adapter_section, env_secret

if TYPE_CHECKING:  # the platform library loads only when its section is configured
    from adapters.telegram.adapter import TelegramAdapter


def create(ctx: AdapterContext) -> TelegramAdapter | None:
    config = adapter_section(ctx, "telegram", TelegramConfig)
    if config is None:
        return None
    token = env_secret(ctx, config.token_env, (
        f"[telegram] reads the bot token from ${config.token_env}, which is not set; create "
        "a bot with @BotFather and export its token there."))
    secret: str | None = None
    if config.mode == "webhook":
        assert config.webhook_secret_env is not None  # the config model insists
        secret = env_secret(ctx, config.webhook_secret_env, (
            f"[telegram] webhook mode reads its secret from ${config.webhook_secret_env}, "
            "which is not set; export a random string of letters, digits, _ and - there."))
    from adapters.telegram.adapter import TelegramAdapter

    return TelegramAdapter(config, token, secret, ctx.state("telegram"))


plugin = AdapterPlugin(platform="telegram", create=create, sections=("telegram",))

__all__ = ["TelegramConfig", "create", "plugin"]
