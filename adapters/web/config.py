"""`[web]`: the Control UI's settings."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class WebConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    token_env: str = "ASKBRIDGE_WEB_TOKEN"
    enabled: bool = True
