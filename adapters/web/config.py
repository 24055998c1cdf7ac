"""`[web]`: the Control UI's settings, its public address and Web Push's contact."""

from __future__ import annotations

from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bridge import Locale

DEFAULT_SUBJECT = "mailto:askbridge@localhost"


class WebConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    token_env: str = "ASKBRIDGE_WEB_TOKEN"
    enabled: bool = True
    locale: Locale | None = None
    """The UI's language when the browser asks for none askbridge has (a person's own choice
    and Accept-Language come first); also what the server writes for the web surface.
    Default: English."""
    public_url: str | None = None
    """How phones reach the UI (notification links, allowed Origin); defaults to the server's."""
    vapid_subject: str = DEFAULT_SUBJECT
    session_days: int = Field(default=30, ge=1, le=3650)
    """Days a browser stays signed in after logging in with the token."""
    """Who push services may contact about our pushes: a `mailto:` (or `https:`) address."""

    @field_validator("public_url")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("give the address people open, like https://askbridge.example.com")
        return value.rstrip("/")

    @field_validator("vapid_subject")
    @classmethod
    def _contact(cls, value: str) -> str:
        if not (value.startswith("mailto:") and "@" in value) and not value.startswith("https://"):
            raise ValueError("give a contact push services can use, like mailto:you@example.com")
        return value
