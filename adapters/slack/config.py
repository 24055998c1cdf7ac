"""`[slack]`: tokens' environment variables, Socket Mode or HTTP mode, API base URL, answerers."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bridge import Locale


class SlackConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    bot_token_env: str = "SLACK_BOT_TOKEN"
    """Holds the bot token (`xoxb-…`) used for every Web API call."""
    app_token_env: str = "SLACK_APP_TOKEN"
    """Holds the app-level token (`xapp-…`, scope `connections:write`); Socket Mode only."""
    signing_secret_env: str = "SLACK_SIGNING_SECRET"
    """Holds the signing secret that verifies requests at POST /slack/events; HTTP mode only."""
    mode: Literal["socket", "http"] = "socket"
    base_url: str = "https://slack.com/api/"
    """The Web API root (GovSlack, a proxy, or the tests' fake)."""
    native: Literal["all", "single"] = "all"
    """`all`: every prompt by taps (radio buttons, checkboxes, Submit); `single`: buttons only
    for one single-select question, numbered text otherwise."""
    answerers: list[str] = Field(default_factory=list)
    """Slack user ids (`U0123`) who may answer in channels; a DM's own user may always answer."""
    connect_timeout_seconds: float = Field(default=15.0, gt=0, le=120)
    """How long one Socket Mode connection attempt may take before it is retried."""
    retries: int = Field(default=3, ge=0, le=10)
    """Retries per Web API call for rate limits (Retry-After honoured), 5xx and lost connections."""
    pace: bool = True
    """Wait for room under Slack's documented rate limits before each message; false only for a
    server without them (a test double, a benchmark's fake). A 429 is honoured either way."""
    locale: Locale | None = None
    """The language of Slack prompts, replies and modals (`en`, `id`); default: the agent's."""
