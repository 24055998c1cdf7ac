"""The Matrix adapter: the numbered prompt plus native polls, in any room the bot is invited to."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.matrix.config import MatrixConfig
from bridge import AdapterContext, AdapterPlugin, adapter_section, env_secret

if TYPE_CHECKING:  # the platform library loads only when its section is configured
    from adapters.matrix.adapter import MatrixAdapter


def create(ctx: AdapterContext) -> MatrixAdapter | None:
    config = adapter_section(ctx, "matrix", MatrixConfig)
    if config is None:
        return None
    token = env_secret(ctx, config.access_token_env, (
        f"[matrix] reads the bot's access token from ${config.access_token_env}, which is "
        f"not set; log in as {config.user_id} (see docs/matrix.md) and export the token there."))
    from adapters.matrix.adapter import MatrixAdapter

    return MatrixAdapter(config, token, ctx.state)


plugin = AdapterPlugin(platform="matrix", create=create, sections=("matrix",))

__all__ = ["MatrixConfig", "create", "plugin"]
