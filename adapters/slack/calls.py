"""Slack Web API plumbing: retry policy (a 429 waits Slack's Retry-After and is logged as
`rate_limited`), quiet library loggers, and errors named without secrets."""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TypeVar

import aiohttp
import structlog
from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_interval_calculators import BackoffRetryIntervalCalculator
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.config import SlackConfig
from bridge import ConfigError, DeliveryError, count_rate_limited

log = structlog.get_logger("askbridge.slack")
_CLIENT_WINS = warning_client_prioritized_and_token_skipped()
T = TypeVar("T")
NETWORK = (SlackClientError, aiohttp.ClientError, TimeoutError, OSError)
"""What a Web API call raises when Slack refused it or could not be reached."""


class _CountedRateLimits(AsyncRateLimitErrorRetryHandler):
    """slack_sdk's own 429 handling (it waits Retry-After and resends), counting each 429 for
    /metrics and logging it as `rate_limited`."""

    async def _can_retry_async(self, *, state: RetryState, request: HttpRequest,
                               response: HttpResponse | None = None,
                               error: Exception | None = None) -> bool:
        limited = await super()._can_retry_async(state=state, request=request,
                                                 response=response, error=error)
        if limited:
            count_rate_limited("slack")
        return limited

    async def prepare_for_next_attempt_async(
        self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> None:
        if response is not None:
            after = next((v for k, v in response.headers.items() if k.lower() == "retry-after"),
                         None)
            log.warning("rate_limited", platform="slack", method=request.url.rsplit("/", 1)[-1],
                        retry_after=float(after[0]) if after else None)
        await super().prepare_for_next_attempt_async(state=state, request=request,
                                                     response=response, error=error)


def retry_handlers(retries: int) -> list[AsyncRetryHandler]:
    backoff = BackoffRetryIntervalCalculator(backoff_factor=0.5)
    return [
        _CountedRateLimits(max_retry_count=retries),
        AsyncServerErrorRetryHandler(max_retry_count=retries, interval_calculator=backoff),
        AsyncConnectionErrorRetryHandler(max_retry_count=retries, interval_calculator=backoff),
    ]


def library_logger(name: str) -> logging.Logger:
    """slack_sdk/bolt log request bodies and tokens' headers at DEBUG: never below INFO here."""
    logger = logging.getLogger(name)
    logger.setLevel(max(logger.getEffectiveLevel(), logging.INFO))
    return logger


def not_client_wins(record: logging.LogRecord) -> bool:
    """Bolt's "As you gave `client` as well…" line: expected here (we pass our own client)."""
    return record.getMessage() != _CLIENT_WINS


def api_error(exc: Exception) -> str:
    if isinstance(exc, SlackApiError):
        return str(exc.response.get("error") or f"HTTP {exc.response.status_code}")
    return type(exc).__name__


def unreachable(base_url: str, exc: BaseException) -> str:
    """A network failure is not a bad token: say so, so nobody re-copies a good one."""
    return (f"Could not reach Slack at {base_url} ({type(exc).__name__}); check "
            "the network, a proxy or [slack] base_url, then run doctor again.")


async def _checked(call: Awaitable[T], base_url: str, refused: str) -> T:
    """`call`'s result; Slack's refusal as `refused` (with `{error}`), a network failure as such."""
    try:
        return await call
    except SlackApiError as exc:
        raise DeliveryError(refused.format(error=api_error(exc))) from exc
    except NETWORK as exc:
        raise DeliveryError(unreachable(base_url, exc)) from exc


REFUSED_TOKEN = frozenset({"invalid_auth", "not_authed", "account_inactive", "token_revoked",
                           "token_expired", "not_allowed_token_type"})
"""Slack's errors for a credential it refuses: fatal at start, where retrying cannot help."""


async def verify_tokens(client: AsyncWebClient, config: SlackConfig, app_token: str) -> None:
    """At start: a token Slack refuses is a `ConfigError`; Slack unreachable (or any other
    answer) is only logged, since sending retries each call and Socket Mode reconnects."""
    try:
        await whoami(client, config, app_token)
    except DeliveryError as exc:
        cause = exc.__cause__
        if isinstance(cause, SlackApiError) and api_error(cause) in REFUSED_TOKEN:
            raise ConfigError(str(exc)) from None
        log.warning("slack_unreachable_at_start", error=str(exc))


async def whoami(client: AsyncWebClient, config: SlackConfig, app_token: str) -> str:
    """`askbridge doctor`: auth.test with the bot token (and, in Socket Mode,
    apps.connections.open with the app token), or a `DeliveryError` saying what to fix."""
    found = await _checked(client.auth_test(), config.base_url, (
        f"Slack rejected the bot token from ${config.bot_token_env} ({{error}}); copy the Bot "
        "User OAuth Token (xoxb-…) from the app's OAuth & Permissions page."))
    if config.mode == "socket":
        await _checked(client.apps_connections_open(app_token=app_token), config.base_url, (
            f"Slack rejected the app token from ${config.app_token_env} ({{error}}); create an "
            "app-level token with connections:write under Basic Information and enable Socket "
            "Mode."))
    return f"Slack app {found.get('user')} in {found.get('team')} ({config.mode} mode)"
