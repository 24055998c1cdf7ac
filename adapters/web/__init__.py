"""The web Control UI surface (`web`): on unless `[web] enabled = false`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.web.config import WebConfig
from bridge import AdapterContext, AdapterPlugin, adapter_section, env_secret

if TYPE_CHECKING:  # the UI loads only when enabled; its push sender with the first push
    from adapters.web.adapter import WebAdapter


def create(ctx: AdapterContext) -> WebAdapter | None:
    config = adapter_section(ctx, "web", WebConfig) or WebConfig()
    if not config.enabled:
        return None
    token = env_secret(ctx, config.token_env, (
        f"The web UI reads its token from ${config.token_env}, which is not set; export a "
        "long random string there, or set [web] enabled = false."))
    from adapters.web.adapter import WebAdapter

    return WebAdapter(token, ctx.base_url, config=config, state=ctx.state("web"))


plugin = AdapterPlugin(platform="web", create=create, sections=("web",))

__all__ = ["WebConfig", "plugin"]
