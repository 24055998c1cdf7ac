"""The web Control UI surface (`web`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.web.config import WebConfig
from bridge import AdapterContext, AdapterPlugin, ConfigError, adapter_section

if TYPE_CHECKING:  # aiohttp and pywebpush load only when the UI is enabled (faster restarts)
    from adapters.web.adapter import WebAdapter


def create(ctx: AdapterContext) -> WebAdapter | None:
    config = adapter_section(ctx, "web", WebConfig) or WebConfig()
    if not config.enabled:
        return None
    from adapters.web.adapter import WebAdapter

    token = ctx.env.get(config.token_env, "")
    if not token:
        raise ConfigError(
            f"The web UI reads its token from ${config.token_env}, which is not set; export a "
            "long random string there, or set [web] enabled = false."
        )
    return WebAdapter(token, ctx.base_url, config=config, state=ctx.state("web"))


plugin = AdapterPlugin(platform="web", create=create, sections=())

__all__ = ["WebConfig", "plugin"]
