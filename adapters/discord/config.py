"""`[discord]`: the bot token's variable, API and gateway endpoints, and who may answer."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bridge import Locale


class DiscordConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    token_env: str = Field(default="DISCORD_BOT_TOKEN", min_length=1)
    """The environment variable holding the bot token (never the token itself)."""
    api_base: str = "https://discord.com/api/v10"
    gateway_url: str = "wss://gateway.discord.gg"
    native: Literal["all", "single"] = "all"
    """`all`: every prompt by taps (select menus, Submit); `single`: buttons only for one
    single-select question, numbered text otherwise."""
    answerers: tuple[str, ...] = ()
    """Discord user ids who may answer in server channels and threads (a DM's user always may)."""
    text_replies: bool = False
    """Read every message in prompt channels (needs the privileged Message Content intent).
    Without it, replies to a prompt, messages mentioning the bot and DMs still work."""
    ready_timeout: float = Field(default=30.0, gt=0, le=300)
    """How long `start()` waits for the gateway's READY before going on in the background."""
    guild_ready_timeout: float = Field(default=2.0, ge=0, le=60)
    """discord.py's wait for the servers' GUILD_CREATE events after READY."""
    locale: Locale | None = None
    """The language of Discord prompts, replies and modals (`en`, `id`); default: the agent's."""

    @field_validator("api_base", "gateway_url")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://", "ws://", "wss://")):
            raise ValueError("must be an absolute http(s):// or ws(s):// URL")
        return value

    @field_validator("answerers", mode="before")
    @classmethod
    def _user_ids(cls, value: Any) -> tuple[str, ...]:
        if not isinstance(value, list | tuple):
            raise ValueError("must be a list of Discord user ids, e.g. [111222333444555666]")
        ids = tuple(str(v).strip() for v in value)
        bad = [v for v in ids if not v.isdigit()]
        if bad:
            raise ValueError(f"Discord user ids are numbers (Developer Mode → Copy User ID); "
                             f"not {', '.join(bad)}")
        return ids
