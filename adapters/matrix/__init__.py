"""The Matrix adapter: the numbered prompt plus native polls, in any room the bot is invited to."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.matrix.config import MatrixConfig

if TYPE_CHECKING:  # the platform library loads only when its section is configured
    from adapters.matrix.adapter import MatrixAdapter

from bridge import AdapterContext, AdapterPlugin, ConfigError, adapter_section


def create(ctx: AdapterContext) -> MatrixAdapter | None:
    config = adapter_section(ctx, "matrix", MatrixConfig)
    if config is None:
        return None
    from adapters.matrix.adapter import MatrixAdapter

    token = ctx.env.get(config.access_token_env, "")
    if not token:
        raise ConfigError(
            f"[matrix] reads the bot's access token from ${config.access_token_env}, which is "
            f"not set; log in as {config.user_id} (see docs/matrix.md) and export the token there."
        )
    return MatrixAdapter(config, token, ctx.state)


plugin = AdapterPlugin(platform="matrix", create=create, sections=("matrix",))

__all__ = ["MatrixConfig", "create", "plugin"]
