"""The webhook text channel adapter (any plain-text channel behind a signed HTTP gateway)."""

from __future__ import annotations

from pydantic import TypeAdapter, ValidationError

from adapters.webhook.adapter import WebhookAdapter
from adapters.webhook.config import WebhookChannelConfig
from bridge import AdapterContext, AdapterPlugin, ConfigError, config_problems

_CHANNELS = TypeAdapter(dict[str, WebhookChannelConfig])


def create(ctx: AdapterContext) -> WebhookAdapter | None:
    section = ctx.config.section("webhooks")
    if not section:
        return None
    try:
        channels = _CHANNELS.validate_python(section)
    except ValidationError as exc:
        problems = "; ".join(config_problems(exc, dict[str, WebhookChannelConfig]))
        raise ConfigError(f"[webhooks] has problems: {problems}.") from exc
    secrets: dict[str, str] = {}
    for name, channel in channels.items():
        secret = ctx.env.get(channel.secret_env, "")
        if not secret:
            raise ConfigError(
                f"[webhooks.{name}] reads its secret from ${channel.secret_env}, which is not "
                "set; export a long random string there (the gateway signs with it too)."
            )
        secrets[name] = secret
    return WebhookAdapter(channels, secrets)


plugin = AdapterPlugin(platform="webhook", create=create, sections=("webhooks",))

__all__ = ["WebhookAdapter", "WebhookChannelConfig", "plugin"]
