"""`[telegram]`: the bot's token variable, Bot API location, update mode and answerers."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bridge import Locale

DEFAULT_BASE_URL = "https://api.telegram.org/bot"


class TelegramConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    token_env: str = "TELEGRAM_BOT_TOKEN"
    """The environment variable holding the BotFather token (never the token itself)."""
    base_url: str = DEFAULT_BASE_URL
    """The Bot API root the token is appended to; change it for a self-hosted Bot API server."""
    base_file_url: str | None = None
    """Defaults to `base_url` with its trailing `/bot` replaced by `/file/bot`."""
    mode: Literal["polling", "webhook"] = "polling"
    webhook_secret_env: str | None = None
    """Webhook mode: the variable holding the secret sent as X-Telegram-Bot-Api-Secret-Token."""
    webhook_url: str | None = None
    """Webhook mode: the public https URL of /telegram/webhook; when set, registered at start."""
    native: Literal["all", "single"] = "all"
    """`all`: every prompt by taps (toggles, a walk through several questions); `single`:
    buttons only for one single-select question, numbered text otherwise."""
    answerers: list[int] = Field(default_factory=list)
    """User ids who may answer in groups (a private chat's own user always may)."""
    poll_timeout: int = Field(default=30, ge=0, le=60)
    """Seconds one getUpdates long-poll is held open by Telegram."""
    request_timeout: float = Field(default=10.0, gt=0, le=120)
    attempts: int = Field(default=4, ge=1, le=10)
    """Tries per Bot API call on 429, 5xx and connection errors."""
    retry_base_seconds: float = Field(default=0.5, gt=0, le=10)
    """First backoff pause; doubles on every further try."""
    max_retry_after: float = Field(default=20.0, ge=0, le=300)
    """A 429 asking to wait longer gives up instead (the broker's send timeout is 30 s)."""
    pace: bool = True
    """Wait for room under Telegram's documented rate limits before each message; false only for a
    server without them (a test double, a benchmark's fake). A 429 is honoured either way."""
    locale: Locale | None = None
    """The language of Telegram prompts and replies (`en`, `id`); default: the agent's."""

    @model_validator(mode="after")
    def _webhook_needs_secret(self) -> TelegramConfig:
        if self.mode == "webhook" and not self.webhook_secret_env:
            raise ValueError(
                'mode = "webhook" needs webhook_secret_env: the variable holding the secret '
                "Telegram must send with every update"
            )
        return self

    @property
    def file_url(self) -> str:
        if self.base_file_url:
            return self.base_file_url
        root = self.base_url.removesuffix("/bot")
        return f"{root}/file/bot"
