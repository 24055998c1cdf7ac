"""`[matrix]`: the homeserver, the bot's Matrix id and token variable, answerers, native polls."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bridge import Locale

USER_ID = re.compile(r"^@[^:\s]+:\S+$")


class MatrixConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    homeserver: str
    """The client-server API base, `https://matrix.example` (no `/_matrix` path)."""
    user_id: str
    """The bot account's full Matrix id, `@askbridge:example`."""
    access_token_env: str = "MATRIX_ACCESS_TOKEN"
    """The environment variable holding the bot's access token (never the token itself)."""
    answerers: list[str] = Field(default_factory=list)
    """Matrix ids who may answer (`@me:example`, a bridged `@whatsapp_628123:example`)."""
    locale: Locale | None = None
    """This section's language for what askbridge writes here; None: the agent's."""
    native: Literal["all", "single"] = "all"
    """`all`: a poll per question for every prompt; `single`: a poll only for one single-choice
    question, numbered text otherwise."""
    sync_timeout: int = Field(default=30, ge=0, le=120)
    """Seconds one /sync long-poll is held open by the homeserver."""
    request_timeout: float = Field(default=20.0, gt=0, le=120)
    """Seconds one send, edit or lookup may take (a /sync gets `sync_timeout` on top)."""
    max_rate_limited: int = Field(default=5, ge=0, le=50)
    """How many M_LIMIT_EXCEEDED answers one call waits out (each for the server's
    `retry_after_ms`) before it gives up."""
    retry_base_seconds: float = Field(default=1.0, gt=0, le=60)
    """First pause of the /sync reconnect backoff; it doubles up to a minute."""

    @field_validator("homeserver")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("https://", "http://")):
            raise ValueError("write the homeserver as a URL, like https://matrix.example")
        return value.rstrip("/")

    @field_validator("user_id")
    @classmethod
    def _matrix_id(cls, value: str) -> str:
        if not USER_ID.match(value):
            raise ValueError("write the bot's full Matrix id, like @askbridge:example.org")
        return value

    @field_validator("answerers")
    @classmethod
    def _answerer_ids(cls, value: list[str]) -> list[str]:
        bad = [v for v in value if not USER_ID.match(v)]
        if bad:
            raise ValueError(f"answerers must be full Matrix ids like @me:example.org, not {bad[0]!r}")
        return value
