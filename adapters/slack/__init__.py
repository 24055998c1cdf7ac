"""The Slack adapter (slack-bolt): Block Kit buttons, an Other… modal, thread replies."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.slack.config import SlackConfig

if TYPE_CHECKING:  # the platform library loads only when its section is configured
    from adapters.slack.adapter import SlackAdapter

from bridge import AdapterContext, AdapterPlugin, ConfigError, adapter_section, surface_platform


def _secret(ctx: AdapterContext, var: str, what: str) -> str:
    value = ctx.env.get(var, "")
    if not value:
        raise ConfigError(f"[slack] reads the {what} from ${var}, which is not set; export it "
                          "(see docs/slack.md) or change the variable's name in [slack].")
    return value


def _thread_surfaces(ctx: AdapterContext) -> set[str]:
    agents = getattr(ctx.config, "agents", None) or []
    return {s for a in agents for s in a.surfaces if surface_platform(s) == "slack" and "/" in s}


def create(ctx: AdapterContext) -> SlackAdapter | None:
    config = adapter_section(ctx, "slack", SlackConfig)
    if config is None:
        return None
    from adapters.slack.adapter import SlackAdapter

    bot = _secret(ctx, config.bot_token_env, "bot token (xoxb-…)")
    if config.mode == "socket":
        app_token = _secret(ctx, config.app_token_env, "app-level token (xapp-…) for Socket Mode")
        return SlackAdapter(config, bot, app_token=app_token,
                            thread_surfaces=_thread_surfaces(ctx))
    secret = _secret(ctx, config.signing_secret_env, "signing secret for HTTP mode")
    return SlackAdapter(config, bot, signing_secret=secret, thread_surfaces=_thread_surfaces(ctx))


plugin = AdapterPlugin(platform="slack", create=create, sections=("slack",))

__all__ = ["SlackConfig", "create", "plugin"]
