"""The Telegram adapter: python-telegram-bot's Application, polling or webhook, and the Bot API."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import structlog
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route
from telegram import Bot, ReplyParameters, Update
from telegram.error import BadRequest, InvalidToken, NetworkError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from adapters.telegram import inbound, render, webhook
from adapters.telegram.bindings import Bindings
from adapters.telegram.calls import Caller, api, explain, requests, whoami
from adapters.telegram.config import TelegramConfig
from adapters.telegram.ids import CALLBACK_PATTERN, chat_of, message_ref, parse_ref
from adapters.telegram.order import InOrderPerPrompt
from adapters.telegram.taps import Taps
from adapters.telegram.webhook import WEBHOOK_PATH
from bridge import (
    DEFAULT_LOCALE,
    AdapterState,
    Capabilities,
    ConfigError,
    Delivery,
    DeliveryError,
    Finalization,
    InboundReply,
    InboundSink,
    MessageRef,
    Priority,
    Prompt,
    Queries,
    Reminder,
    SurfaceId,
    TextReceived,
    backoff,
)

log = structlog.get_logger("askbridge.telegram")
ALLOWED_UPDATES = ["message", "callback_query"]
TelegramApp = Application[Any, Any, Any, Any, Any, Any]


class TelegramAdapter:
    platform = "telegram"

    def __init__(self, config: TelegramConfig, token: str, webhook_secret: str | None,
                 state: AdapterState) -> None:
        self.config = config
        self._token = token
        self._webhook_secret = webhook_secret
        self.call = Caller(config)
        self.pace = self.call.pace
        """Paced: the core waits here for room before each prompt, reminder and final edit."""
        self.sink: InboundSink | None = None
        self.queries: Queries | None = None
        self._app: TelegramApp | None = None
        self._ready = False
        self._down: str | None = "Telegram is still connecting; try again in a moment."
        self._connecting: asyncio.Task[None] | None = None
        self._want_poll = False
        """Set while this replica leads (LongConnection): only the leader polls getUpdates."""
        self.bindings = Bindings(state)
        self.taps = Taps(self)

    # contract ----------------------------------------------------------------------------

    def capabilities(self, surface: SurfaceId) -> Capabilities:
        every = self.config.native == "all"
        return Capabilities(buttons=True, edits=True, reply_to=True, max_len=render.MAX_TEXT,
                            native_multi=every, native_several=every, locale=self.config.locale)

    @property
    def locale(self) -> str:
        """This section's language for what the adapter itself says (no question at hand)."""
        return self.config.locale or DEFAULT_LOCALE

    def routes(self) -> Sequence[BaseRoute]:
        if self.config.mode != "webhook":
            return []
        return [Route(WEBHOOK_PATH, self._webhook, methods=["POST"])]

    async def start(self, sink: InboundSink, queries: Queries) -> None:
        self.sink, self.queries = sink, queries
        self._app = self._build()
        try:
            await self._connect(self._app)
        except InvalidToken as exc:  # refused, not unreachable: retrying cannot fix it
            raise ConfigError(explain(exc, self.config.token_env)) from None
        except NetworkError as exc:
            log.warning("telegram_unreachable", error=type(exc).__name__)
            self._connecting = asyncio.create_task(self._reconnect(self._app))

    async def stop(self) -> None:
        await self.bindings.close()
        if self._connecting is not None:
            self._connecting.cancel()
            await asyncio.gather(self._connecting, return_exceptions=True)
        app, self._app, self._ready = self._app, None, False
        if app is None:
            return
        if app.updater is not None and app.updater.running:
            await app.updater.stop()
        if app.running:
            await app.stop()
        await app.shutdown()
        log.info("telegram_stopped")

    async def deliver(self, surface: SurfaceId, prompt: Prompt) -> MessageRef | None:
        bot = self.bot()
        chat, thread = chat_of(surface)
        messages = render.prompt(prompt)
        buttons = messages[-1][1] is not None
        try:
            message_id = await self.call.send(bot, chat, thread, messages, Priority.PROMPT)
        except BadRequest as exc:
            if not buttons:
                raise DeliveryError(explain(exc, self.config.token_env)) from exc
            log.warning("telegram_buttons_refused", question_id=prompt.question_id,
                        surface=surface, error=exc.message)
            try:  # the numbered text, answerable by replies, in full
                message_id = await self.call.send(bot, chat, thread, [
                    (p, None) for p in render.plain(prompt.text)], Priority.PROMPT)
            except BadRequest as again:
                raise DeliveryError(explain(again, self.config.token_env)) from again
        log.debug("telegram_sent", question_id=prompt.question_id, surface=surface,
                  message_id=message_id, buttons=buttons, messages=len(messages))
        return message_ref(chat, message_id)

    async def remind(self, delivery: Delivery, reminder: Reminder) -> MessageRef | None:
        """A new message replying to the prompt (sent even if the prompt was deleted)."""
        chat, thread = chat_of(delivery.surface)
        to = ReplyParameters(parse_ref(delivery.message_ref)[1],
                             allow_sending_without_reply=True) if delivery.message_ref else None
        sent = await self.call.send(self.bot(), chat, thread,
                                    [(p, None) for p in render.plain(reminder.text)],
                                    Priority.REMINDER, reply_parameters=to)
        return message_ref(chat, sent)

    async def finalize(self, delivery: Delivery, final: Finalization) -> None:
        self.bindings.forget(delivery.question_id)
        self.taps.forget(delivery.question_id)
        self.bindings.prune_soon(self.queries, self.taps.prune)  # at most hourly
        if delivery.message_ref is None:
            return
        bot = self.bot()
        chat, message_id = parse_ref(delivery.message_ref)
        text = render.final(final)
        try:  # editing the text without reply_markup also removes the keyboard
            await self.call.edit(chat, message_id, "editMessageText", lambda: api(
                bot, "editMessageText", chat_id=chat, message_id=message_id, text=text))
        except BadRequest as exc:
            if "not modified" in exc.message.lower():
                return
            log.warning("telegram_edit_refused", question_id=delivery.question_id,
                        error=exc.message)
            await self.call.edit(chat, message_id, "editMessageReplyMarkup",
                                 lambda: bot.edit_message_reply_markup(
                                     chat_id=chat, message_id=message_id, reply_markup=None))
        log.debug("telegram_finalized", question_id=delivery.question_id,
                 surface=delivery.surface, kind=final.kind)

    async def check(self) -> str:
        """`askbridge doctor`: getMe with the configured token."""
        return await whoami(self.config, self._token)

    # connection --------------------------------------------------------------------------

    def _build(self) -> TelegramApp:
        calls, polls = requests(self.config)
        builder = (ApplicationBuilder().token(self._token).base_url(self.config.base_url)
                   .base_file_url(self.config.file_url).request(calls)
                   .get_updates_request(polls).concurrent_updates(InOrderPerPrompt()))
        if self.config.mode == "webhook":
            builder = builder.updater(None)
        app: TelegramApp = builder.build()
        app.add_handler(CallbackQueryHandler(self.taps.on_tap, pattern=CALLBACK_PATTERN))
        app.add_handler(CallbackQueryHandler(self.taps.on_stale))
        app.add_handler(MessageHandler(filters.TEXT & filters.UpdateType.MESSAGE, self._on_text))
        app.add_error_handler(self._on_error)
        return app

    async def connect(self) -> None:
        """Leader only (LongConnection): start long-polling getUpdates (polling mode)."""
        self._want_poll = True
        if self._app is not None and self._ready:
            await self._poll(self._app)

    async def disconnect(self) -> None:
        self._want_poll = False
        app = self._app
        if app is not None and app.updater is not None and app.updater.running:
            await app.updater.stop()
            log.info("telegram_polling_stopped")

    async def _poll(self, app: TelegramApp) -> None:
        if app.updater is None or app.updater.running:
            return
        await app.updater.start_polling(
            poll_interval=0, timeout=self.config.poll_timeout, bootstrap_retries=0,
            allowed_updates=ALLOWED_UPDATES, drop_pending_updates=False,
            error_callback=lambda exc: log.warning("telegram_poll_failed",
                                                   error=type(exc).__name__))

    async def _connect(self, app: TelegramApp) -> None:
        await app.initialize()  # getMe: fails fast on a bad token
        await app.start()
        if self._want_poll:
            await self._poll(app)
        if self.config.mode == "webhook" and self.config.webhook_url:
            try:
                await app.bot.set_webhook(self.config.webhook_url,
                                          secret_token=self._webhook_secret,
                                          allowed_updates=ALLOWED_UPDATES)
            except BadRequest as exc:  # a wrong URL must not stop sending; say why and go on
                log.error("telegram_webhook_refused", error=exc.message)
        self._ready, self._down = True, None
        log.info("telegram_connected", bot=app.bot.username, mode=self.config.mode)

    async def _reconnect(self, app: TelegramApp) -> None:
        """Keep trying (backing off to a minute) while Telegram is unreachable at start."""
        async for _ in backoff(self.config.retry_base_seconds, 60.0):
            try:
                await self._connect(app)
                return
            except InvalidToken as exc:
                self._down = explain(exc, self.config.token_env)
                log.error("telegram_token_rejected", token_env=self.config.token_env)
                return
            except NetworkError as exc:
                log.warning("telegram_unreachable", error=type(exc).__name__)

    def bot(self) -> Bot:
        if self._app is None or not self._ready:
            raise DeliveryError(self._down or "the Telegram adapter is not running")
        bot: Bot = self._app.bot
        return bot

    # inbound -----------------------------------------------------------------------------

    async def _on_text(self, update: Update, _: ContextTypes.DEFAULT_TYPE) -> None:
        said = inbound.said_from(update)
        if said is None or self.sink is None:
            return
        ask = await self.taps.approvals.ask_of(said)
        if ask is not None:  # the reason for a Reject, or the arguments of an Edit
            await self._reply(said, await self.taps.approvals.reply(said, ask))
            return
        own_words = self.taps.own_words_event(said)
        if own_words is not None:
            kept = await self.sink.answers_submitted(own_words[0])
            await self._reply(said, kept)
            await self.taps.refresh(own_words[1], kept)
            return
        reply_to: str | None = None
        if said.reply_to_message_id is not None and said.reply_to_bot:
            key = (said.where.chat_id, said.reply_to_message_id)
            reply_to = await self.bindings.get(key) or message_ref(*key)
        event = inbound.event_from(update, self.config.answerers, reply_to)
        if not isinstance(event, TextReceived):
            return
        reply = await self.sink.text_received(event)
        log.info("telegram_text", surface=event.surface, handled=reply.handled,
                 accepted=reply.accepted, question_id=reply.question_id)
        await self._reply(said, reply)

    async def _reply(self, said: inbound.Said, reply: InboundReply) -> None:
        if reply.handled and reply.text:
            sent = await self.call.send(self.bot(), said.where.chat_id, said.where.thread_id,
                                        [(p, None) for p in render.plain(reply.text)],
                                        Priority.PROMPT, reply_parameters=ReplyParameters(
                                            said.message_id, allow_sending_without_reply=True))
            if reply.question_id and not reply.ended:  # "Still needed …": a reply to it counts
                await self.bindings.bind((said.where.chat_id, sent), reply.question_id)

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        error = context.error
        log.warning("telegram_handler_failed", error=type(error).__name__,
                    detail=str(error) if isinstance(error, DeliveryError) else None)

    async def _webhook(self, request: Request) -> JSONResponse:
        return await webhook.receive(request, self._webhook_secret,
                                     self._app if self._ready else None)
