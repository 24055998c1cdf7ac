"""The Discord adapter: buttons and modals for one question, numbered text for the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.discord.config import DiscordConfig

if TYPE_CHECKING:  # the platform library loads only when its section is configured
    from adapters.discord.adapter import DiscordAdapter

from bridge import AdapterContext, AdapterPlugin, ConfigError, adapter_section


def create(ctx: AdapterContext) -> DiscordAdapter | None:
    config = adapter_section(ctx, "discord", DiscordConfig)
    if config is None:
        return None
    from adapters.discord.adapter import DiscordAdapter

    token = ctx.env.get(config.token_env, "").strip()
    if not token:
        raise ConfigError(
            f"[discord] reads the bot token from ${config.token_env}, which is not set; copy it "
            "from the Developer Portal (your application → Bot → Reset Token) and export it."
        )
    return DiscordAdapter(config, token)


plugin = AdapterPlugin(platform="discord", create=create, sections=("discord",))

__all__ = ["DiscordConfig", "create", "plugin"]
