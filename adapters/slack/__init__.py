"""The Slack adapter (slack-bolt): Block Kit buttons, an Other… modal, thread replies."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.slack.config import SlackConfig
from bridge import AdapterContext, AdapterPlugin, adapter_section, env_secret, surface_platform

if TYPE_CHECKING:  # the platform library loads only when its section is configured
    from adapters.slack.adapter import SlackAdapter


def _secret(ctx: AdapterContext, var: str, what: str) -> str:
    return env_secret(ctx, var, f"[slack] reads the {what} from ${var}, which is not set; export "
                                "it (see docs/slack.md) or change the variable's name in [slack].")


def create(ctx: AdapterContext) -> SlackAdapter | None:
    config = adapter_section(ctx, "slack", SlackConfig)
    if config is None:
        return None
    bot = _secret(ctx, config.bot_token_env, "bot token (xoxb-…)")
    if config.mode == "socket":
        keys = {"app_token": _secret(ctx, config.app_token_env,
                                     "app-level token (xapp-…) for Socket Mode")}
    else:
        keys = {"signing_secret": _secret(ctx, config.signing_secret_env,
                                          "signing secret for HTTP mode")}
    threads = {s for s in ctx.config.agent_surfaces()
               if surface_platform(s) == "slack" and "/" in s}
    from adapters.slack.adapter import SlackAdapter

    return SlackAdapter(config, bot, thread_surfaces=threads, **keys)


plugin = AdapterPlugin(platform="slack", create=create, sections=("slack",))

__all__ = ["SlackConfig", "create", "plugin"]
