"""The webhook text channel adapter (any plain-text channel behind a signed HTTP gateway)."""

from __future__ import annotations

from adapters.webhook.adapter import WebhookAdapter
from adapters.webhook.config import WebhookChannelConfig
from bridge import AdapterContext, AdapterPlugin, adapter_section, env_secret


def create(ctx: AdapterContext) -> WebhookAdapter | None:
    channels = adapter_section(ctx, "webhooks", dict[str, WebhookChannelConfig])
    if not channels:
        return None
    secrets = {name: env_secret(ctx, channel.secret_env, (
        f"[webhooks.{name}] reads its secret from ${channel.secret_env}, which is not "
        "set; export a long random string there (the gateway signs with it too)."))
        for name, channel in channels.items()}
    web = ctx.config.section("web") or {}
    # The console's prompts link to the question in the web UI, when there is one to open.
    web_url = ctx.base_url if web.get("enabled", True) and ctx.base_url else None
    return WebhookAdapter(channels, secrets, web_url=web_url)


plugin = AdapterPlugin(platform="webhook", create=create, sections=("webhooks",))

__all__ = ["WebhookAdapter", "WebhookChannelConfig", "plugin"]
