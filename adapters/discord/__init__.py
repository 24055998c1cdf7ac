"""The Discord adapter: buttons and modals for one question, numbered text for the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError

from adapters.discord.config import DiscordConfig

if TYPE_CHECKING:  # the platform library loads only when its section is configured
    from adapters.discord.adapter import DiscordAdapter

from bridge import AdapterContext, AdapterPlugin, ConfigError


def create(ctx: AdapterContext) -> DiscordAdapter | None:
    section = ctx.config.section("discord")
    if section is None:
        return None
    from adapters.discord.adapter import DiscordAdapter

    try:
        config = DiscordConfig.model_validate(section)
    except ValidationError as exc:
        raise ConfigError(f"[discord] has problems: {exc}") from exc
    token = ctx.env.get(config.token_env, "").strip()
    if not token:
        raise ConfigError(
            f"[discord] reads the bot token from ${config.token_env}, which is not set; copy it "
            "from the Developer Portal (your application → Bot → Reset Token) and export it."
        )
    return DiscordAdapter(config, token)


plugin = AdapterPlugin(platform="discord", create=create, sections=("discord",))

__all__ = ["DiscordConfig", "create", "plugin"]
