"""The Discord adapter: buttons and modals for one question, numbered text for the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.discord.config import DiscordConfig
from bridge import AdapterContext, AdapterPlugin, adapter_section, env_secret

if TYPE_CHECKING:  # the platform library loads only when its section is configured
    from adapters.discord.adapter import DiscordAdapter


def create(ctx: AdapterContext) -> DiscordAdapter | None:
    config = adapter_section(ctx, "discord", DiscordConfig)
    if config is None:
        return None
    token = env_secret(ctx, config.token_env, (
        f"[discord] reads the bot token from ${config.token_env}, which is not set; copy it "
        "from the Developer Portal (your application → Bot → Reset Token) and export it.")).strip()
    from adapters.discord.adapter import DiscordAdapter
    from adapters.discord.ratelimits import count_rate_limits

    count_rate_limits()
    return DiscordAdapter(config, token)


plugin = AdapterPlugin(platform="discord", create=create, sections=("discord",))

__all__ = ["DiscordConfig", "create", "plugin"]
