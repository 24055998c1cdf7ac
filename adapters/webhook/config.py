"""`[webhooks.<name>]`: one plain-text channel (SMS, e-mail, Matrix bridges) per table."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from bridge import Locale


class WebhookChannelConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str | None = None
    """Where prompts are POSTed; without it, prompts are printed on the server's console."""
    secret_env: str
    """The environment variable holding the HMAC secret used in both directions."""
    answerers: list[str] = Field(default_factory=list)
    """Senders who may answer; empty means whoever the signed gateway forwards."""
    timeout_seconds: float = Field(default=10.0, gt=0, le=60)
    attempts: int = Field(default=3, ge=1, le=10)
    max_len: int = Field(default=4000, ge=160)
    replay_window_seconds: int = Field(default=300, ge=10, le=3600)
    """How far X-Askbridge-Timestamp may be from now; seen requests are refused within it."""
    require_timestamp: bool = False
    """Refuse replies without X-Askbridge-Timestamp (turn on once your gateway sends it)."""
    locale: Locale | None = None
    """The language of this channel's prompts and replies (`en`, `id`); default: the agent's."""
