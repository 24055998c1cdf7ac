"""`[web]`: the Control UI's settings."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from bridge import Locale


class WebConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    token_env: str = "ASKBRIDGE_WEB_TOKEN"
    enabled: bool = True
    locale: Locale | None = None
    """The UI's language when the browser asks for none askbridge has; default: English."""
