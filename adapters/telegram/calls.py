"""Bot API calls paced under Telegram's limits, with bounded retries: 429 waits `retry_after`
(and is logged as `rate_limited`), 5xx and network errors back off."""

from __future__ import annotations

import asyncio
import datetime as dt
import math
import warnings
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, TypeVar

import structlog
from telegram import Bot
from telegram.error import (
    BadRequest,
    ChatMigrated,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from telegram.request import HTTPXRequest
from telegram.warnings import PTBDeprecationWarning, PTBUserWarning

from adapters.telegram.config import TelegramConfig
from adapters.telegram.ids import message_ref, surface_for
from adapters.telegram.limits import TelegramLimits
from bridge import DeliveryError, Pace, Priority, backoff_delay, client_tls, count_rate_limited

log = structlog.get_logger("askbridge.telegram")
T = TypeVar("T")

# PTB nudges whoever calls `do_api_request` with one of its own methods towards the typed one;
# `api` below does so on purpose, so the nudge is silenced for calls made from here only.
warnings.filterwarnings("ignore", message=r"Please use 'Bot\.", category=PTBUserWarning,
                        module=r"adapters\.telegram\.calls\Z")


POLL_PAUSE = 0.001
"""Seconds a getUpdates waits before it is sent. PTB sends the next one as soon as the last
answered, and building it takes a millisecond of CPU that ran ahead of the updates just
received: a tap's answer waited for it before reaching the store and the agent (answer path
1.27-1.38x the relay without the pause, 1.02-1.14x with; bench/README.md). Updates arriving
meanwhile wait at Telegram for that poll, which takes up to 100 at once."""


class PollRequest(HTTPXRequest):
    """PTB's request layer for getUpdates alone, paused by POLL_PAUSE. (Not `poll_interval`:
    PTB grows its backoff after an error from that interval, so 1 ms would retry a failing
    Telegram every few milliseconds instead of after 1, 1.5, 2.25 ... seconds.)"""

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        await asyncio.sleep(POLL_PAUSE)
        return await super().do_request(*args, **kwargs)


def requests(config: TelegramConfig) -> tuple[HTTPXRequest, PollRequest]:
    """PTB's two request layers, for every call and for getUpdates, as its builder makes them
    (256 and 1 connections) but on the process's shared TLS context: each would otherwise read
    the CA bundle for itself."""
    timeout, tls = config.request_timeout, {"verify": client_tls()}
    return (HTTPXRequest(connection_pool_size=256, connect_timeout=timeout, read_timeout=timeout,
                         write_timeout=timeout, httpx_kwargs=tls),
            PollRequest(connection_pool_size=1, read_timeout=timeout, httpx_kwargs=tls))


async def api(bot: Bot, method: str, **params: Any) -> Any:
    """One Bot API call through PTB's own request layer (its connection pool, timeouts and
    errors), answered with Telegram's JSON as is. The hot calls (a prompt, its edits) need no
    `Message` built from every answer (~90 µs of CPU each, measured), and keyboards go as JSON.
    Parameters that are None are left out, as PTB's typed methods do."""
    try:
        return await bot.do_api_request(method, api_kwargs=params)
    except EndPointNotFound as exc:  # do_api_request's word for a 401/404: the token's fault
        raise InvalidToken(exc.message) from exc


def retry_after_seconds(exc: RetryAfter) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = exc.retry_after
    return value.total_seconds() if isinstance(value, dt.timedelta) else float(value)


def explain(exc: TelegramError, token_env: str) -> str:
    """A sentence a person can act on; Telegram's own descriptions never contain the token."""
    if isinstance(exc, InvalidToken):
        return (f"Telegram rejected the bot token in ${token_env}; copy it again from @BotFather "
                "(/token) and restart.")
    if isinstance(exc, Forbidden):
        return (f"the bot may not write there ({exc.message}); add it to the chat, or have the "
                "person press Start in a private chat with it")
    if isinstance(exc, ChatMigrated):
        return (f"the group became a supergroup; use the surface telegram:{exc.new_chat_id} "
                "instead")
    if isinstance(exc, BadRequest):
        return f"Telegram refused the message ({exc.message})"
    if isinstance(exc, RetryAfter):
        return f"Telegram asks to wait {retry_after_seconds(exc):.0f} s before sending again"
    return f"Telegram could not be reached ({exc.message})"


class Caller:
    """Runs one Bot API call with the configured retry policy; messages sent and edited wait
    for room under Telegram's limits first (`send`, `edit`)."""

    def __init__(self, config: TelegramConfig) -> None:
        self.config = config
        self.pace = Pace(TelegramLimits() if config.pace else lambda surface, priority: ())

    async def send(self, bot: Bot, chat: int | str, thread: int | None,
                   messages: Sequence[tuple[str, object]], priority: Priority,
                   **extra: Any) -> int:
        """Each message (text, reply markup) in order, `extra` on the first, each once the bot,
        the chat (and a group) have room; the id of the last one, which holds the keyboard and
        is the one a reply, a tap or finalization refers to."""
        sent, surface = 0, surface_for(chat)
        for n, (text, markup) in enumerate(messages):
            reply = await self.pace.call(surface, priority, partial(self, "sendMessage", partial(
                api, bot, "sendMessage", chat_id=chat, text=text, reply_markup=markup,
                message_thread_id=thread, **(extra if n == 0 else {}))))
            sent = int(reply["message_id"])
        return sent

    async def edit(self, chat: int | str, message_id: int, method: str,
                   call: Callable[[], Awaitable[object]]) -> None:
        """An edit of a message, once there is room; skipped if a later edit of the same
        message is queued before it leaves."""
        await self.pace.edit(surface_for(chat), message_ref(chat, message_id),
                             lambda: self(method, call))

    async def __call__(self, method: str, call: Callable[[], Awaitable[T]]) -> T:
        """The call's result; BadRequest is raised as is (the caller may fall back), every other
        lasting failure as DeliveryError."""
        last: TelegramError | None = None
        for attempt in range(self.config.attempts):
            try:
                return await call()
            except BadRequest:
                raise
            except RetryAfter as exc:
                count_rate_limited("telegram")
                last = exc
                wait = retry_after_seconds(exc)
                log.warning("rate_limited", platform="telegram", method=method, retry_after=wait)
                if wait > self.config.max_retry_after:
                    break
            except NetworkError as exc:  # 5xx, timeouts, refused connections
                last = exc
                wait = backoff_delay(attempt, self.config.retry_base_seconds, math.inf)
            except TelegramError as exc:  # a bad token, a blocked bot: retrying cannot help
                last = exc
                break
            if attempt + 1 < self.config.attempts:
                log.info("telegram_retry", method=method, attempt=attempt + 1,
                         wait=round(wait, 2), error=type(last).__name__)
                await asyncio.sleep(wait)
        assert last is not None
        log.warning("telegram_call_failed", method=method, error=type(last).__name__)
        raise DeliveryError(explain(last, self.config.token_env)) from last


async def whoami(config: TelegramConfig, token: str) -> str:
    """`askbridge doctor`: getMe with the configured token, or a `DeliveryError` saying why not."""
    calls, polls = requests(config)
    bot = Bot(token, base_url=config.base_url, base_file_url=config.file_url, request=calls,
              get_updates_request=polls)
    try:
        me = await bot.get_me(read_timeout=config.request_timeout)
    except TelegramError as exc:
        raise DeliveryError(explain(exc, config.token_env)) from exc
    finally:
        await bot.shutdown()
    return f"Telegram bot @{me.username}"
