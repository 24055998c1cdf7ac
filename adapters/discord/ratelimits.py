"""discord.py paces every call by Discord's rate limit buckets and waits out a 429 itself; each
429 it meets is logged here as `rate_limited`, like every platform's."""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

import structlog

from bridge import count_rate_limited

log = structlog.get_logger("askbridge.discord")
_WAITING = "We are being rate limited."
"""How discord.py's `discord.http` logger begins the line for a 429 it retries or gives up on."""


def route(url: str) -> str:
    """The call's route without ids or tokens (`messages`, `callback`): webhook and
    interaction URLs carry a token, which is never logged."""
    parts = [p for p in urlsplit(url).path.split("/") if p and not p.isdigit()]
    return "webhooks" if "webhooks" in parts else (parts[-1] if parts else "")


class CountRateLimits(logging.Filter):
    """Passes every record on; a 429 line is also logged as `rate_limited` and counted."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(record.msg, str) and record.msg.startswith(_WAITING) \
                and isinstance(args, tuple) and len(args) == 3:
            method, url, retry_after = args
            count_rate_limited("discord")
            log.warning("rate_limited", platform="discord", method=f"{method} {route(str(url))}",
                        retry_after=float(retry_after))  # type: ignore[arg-type]
        return True


def count_rate_limits() -> None:
    """Once per process: discord.py's 429 lines counted (see `CountRateLimits`)."""
    logger = logging.getLogger("discord.http")
    if not any(isinstance(f, CountRateLimits) for f in logger.filters):
        logger.addFilter(CountRateLimits())
