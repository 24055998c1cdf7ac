"""The Telegram adapter: inline keyboards for one-choice prompts, numbered text for the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.telegram.config import TelegramConfig

if TYPE_CHECKING:  # the platform library loads only when its section is configured
    from adapters.telegram.adapter import TelegramAdapter

from bridge import AdapterContext, AdapterPlugin, ConfigError, adapter_section


def create(ctx: AdapterContext) -> TelegramAdapter | None:
    config = adapter_section(ctx, "telegram", TelegramConfig)
    if config is None:
        return None
    from adapters.telegram.adapter import TelegramAdapter

    token = ctx.env.get(config.token_env, "")
    if not token:
        raise ConfigError(
            f"[telegram] reads the bot token from ${config.token_env}, which is not set; create "
            "a bot with @BotFather and export its token there."
        )
    secret: str | None = None
    if config.mode == "webhook":
        assert config.webhook_secret_env is not None  # the config model insists
        secret = ctx.env.get(config.webhook_secret_env, "")
        if not secret:
            raise ConfigError(
                f"[telegram] webhook mode reads its secret from ${config.webhook_secret_env}, "
                "which is not set; export a random string of letters, digits, _ and - there."
            )
    return TelegramAdapter(config, token, secret, ctx.state("telegram"))


plugin = AdapterPlugin(platform="telegram", create=create, sections=("telegram",))

__all__ = ["TelegramConfig", "create", "plugin"]
