"""The Telegram adapter: python-telegram-bot's Application, polling or webhook, and the Bot API."""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Sequence
from typing import Any

import structlog
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route
from telegram import Bot, ForceReply, Message, ReplyParameters, Update
from telegram.error import BadRequest, InvalidToken, NetworkError, TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from adapters.telegram import inbound, render
from adapters.telegram.calls import Caller, explain
from adapters.telegram.config import TelegramConfig
from bridge import (
    DEFAULT_LOCALE,
    BadJson,
    Capabilities,
    Delivery,
    DeliveryError,
    Finalization,
    InboundSink,
    MessageRef,
    Prompt,
    QuestionId,
    SurfaceId,
    error_response,
    read_json,
    surface_target,
    tr,
)

log = structlog.get_logger("askbridge.telegram")
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
WEBHOOK_PATH = "/telegram/webhook"
ALLOWED_UPDATES = ["message", "callback_query"]
TelegramApp = Application[Any, Any, Any, Any, Any, Any]


class TelegramAdapter:
    platform = "telegram"

    def __init__(self, config: TelegramConfig, token: str, webhook_secret: str | None) -> None:
        self.config = config
        self._token = token
        self._webhook_secret = webhook_secret
        self._call = Caller(config)
        self._sink: InboundSink | None = None
        self._app: TelegramApp | None = None
        self._ready = False
        self._down: str | None = "Telegram is still connecting; try again in a moment."
        self._connecting: asyncio.Task[None] | None = None
        self._want_poll = False
        """Set while this replica leads (LongConnection): only the leader polls getUpdates."""
        self._bound: dict[tuple[int | str, int], QuestionId] = {}
        """Our force-reply asks and follow-ups (chat, message id) → the question a reply answers."""

    # contract ----------------------------------------------------------------------------

    def capabilities(self, surface: SurfaceId) -> Capabilities:
        return Capabilities(buttons=True, edits=True, reply_to=True, max_len=render.MAX_TEXT,
                            locale=self.config.locale)

    def routes(self) -> Sequence[BaseRoute]:
        if self.config.mode != "webhook":
            return []
        return [Route(WEBHOOK_PATH, self._webhook, methods=["POST"])]

    async def start(self, sink: InboundSink) -> None:
        self._sink = sink
        self._app = self._build()
        try:
            await self._connect(self._app)
        except InvalidToken as exc:
            self._down = explain(exc, self.config.token_env)
            log.error("telegram_token_rejected", token_env=self.config.token_env)
        except NetworkError as exc:
            log.warning("telegram_unreachable", error=type(exc).__name__)
            self._connecting = asyncio.create_task(self._reconnect(self._app))

    async def stop(self) -> None:
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
        bot = self._bot()
        chat, thread = self._target(surface)
        markup = render.keyboard(prompt)
        try:
            message = await self._send(bot, chat, thread, render.prompt_message(prompt), markup)
        except BadRequest as exc:
            if markup is None:
                raise DeliveryError(explain(exc, self.config.token_env)) from exc
            log.warning("telegram_buttons_refused", question_id=prompt.question_id,
                        surface=surface, error=exc.message)
            try:
                message = await self._send(bot, chat, thread, render.clip(prompt.text), None)
            except BadRequest as again:
                raise DeliveryError(explain(again, self.config.token_env)) from again
        log.info("telegram_sent", question_id=prompt.question_id, surface=surface,
                 message_id=message.message_id, buttons=markup is not None)
        return MessageRef(inbound.message_ref(chat, message.message_id))

    async def finalize(self, delivery: Delivery, final: Finalization) -> None:
        self._bound = {k: q for k, q in self._bound.items() if q != delivery.question_id}
        if delivery.message_ref is None:
            return
        bot = self._bot()
        chat, message_id = inbound.parse_ref(delivery.message_ref)
        text = render.final_message(final)
        try:  # editing the text without reply_markup also removes the keyboard
            await self._call("editMessageText", lambda: bot.edit_message_text(
                text, chat_id=chat, message_id=message_id))
        except BadRequest as exc:
            if "not modified" in exc.message.lower():
                return
            log.warning("telegram_edit_refused", question_id=delivery.question_id,
                        error=exc.message)
            await self._call("editMessageReplyMarkup", lambda: bot.edit_message_reply_markup(
                chat_id=chat, message_id=message_id, reply_markup=None))
        log.info("telegram_finalized", question_id=delivery.question_id,
                 surface=delivery.surface, kind=final.kind)

    async def check(self) -> str:
        """`askbridge doctor`: getMe with the configured token."""
        bot = Bot(self._token, base_url=self.config.base_url,
                  base_file_url=self.config.file_url)
        try:
            me = await bot.get_me(read_timeout=self.config.request_timeout)
        except TelegramError as exc:
            raise DeliveryError(explain(exc, self.config.token_env)) from exc
        finally:
            await bot.shutdown()
        return f"Telegram bot @{me.username}"

    # connection --------------------------------------------------------------------------

    def _build(self) -> TelegramApp:
        timeout = self.config.request_timeout
        builder = (ApplicationBuilder().token(self._token).base_url(self.config.base_url)
                   .base_file_url(self.config.file_url).connect_timeout(timeout)
                   .read_timeout(timeout).write_timeout(timeout)
                   .get_updates_read_timeout(timeout))
        if self.config.mode == "webhook":
            builder = builder.updater(None)
        app: TelegramApp = builder.build()
        app.add_handler(CallbackQueryHandler(self._on_tap))
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
        pause = self.config.retry_base_seconds
        while not self._ready:
            await asyncio.sleep(pause)
            pause = min(pause * 2, 60.0)
            try:
                await self._connect(app)
            except InvalidToken as exc:
                self._down = explain(exc, self.config.token_env)
                log.error("telegram_token_rejected", token_env=self.config.token_env)
                return
            except NetworkError as exc:
                log.warning("telegram_unreachable", error=type(exc).__name__)

    def _bot(self) -> Bot:
        if self._app is None or not self._ready:
            raise DeliveryError(self._down or "the Telegram adapter is not running")
        bot: Bot = self._app.bot
        return bot

    @staticmethod
    def _target(surface: SurfaceId) -> tuple[int | str, int | None]:
        try:
            return inbound.parse_target(surface_target(surface))
        except ValueError:
            raise DeliveryError(
                f"{surface} is not a Telegram chat; write telegram:<chat_id> or "
                "telegram:<chat_id>/<topic_id>") from None

    async def _send(self, bot: Bot, chat: int | str, thread: int | None, text: str,
                    markup: Any, **extra: Any) -> Message:
        return await self._call("sendMessage", lambda: bot.send_message(
            chat, text, reply_markup=markup, message_thread_id=thread, **extra))

    # inbound -----------------------------------------------------------------------------

    async def _on_tap(self, update: Update, _: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        tap = inbound.tap_from(update)
        if query is None or tap is None or self._sink is None:
            return
        event = inbound.button_event(tap, self.config.answerers)
        if event is None:
            await query.answer(tr(self.config.locale or DEFAULT_LOCALE,
                                  "This button is no longer valid."), show_alert=True)
            return
        reply = await self._sink.button_pressed(event)
        log.info("telegram_tap", question_id=event.question_id, surface=event.surface,
                 authorized=event.authorized, accepted=reply.accepted)
        await query.answer(render.clip(reply.text or "", 200) or None,
                           show_alert=not reply.accepted)
        if event.action == "other" and reply.accepted and tap.where is not None:
            await self._ask_free_text(update, tap.where, event.question_id)

    async def _ask_free_text(self, update: Update, where: inbound.Where,
                             question_id: QuestionId) -> None:
        assert self._sink is not None
        prompt = await self._sink.prompt_for(question_id, where.surface)
        person = update.effective_user if where.chat_type != inbound.PRIVATE else None
        text, entities = render.free_text_request(prompt, person)
        placeholder = tr(prompt.locale if prompt else DEFAULT_LOCALE, "Your answer")
        message = await self._send(
            self._bot(), where.chat_id, where.thread_id, text,
            ForceReply(selective=True, input_field_placeholder=placeholder), entities=entities)
        self._bound[(where.chat_id, message.message_id)] = question_id

    async def _on_text(self, update: Update, _: ContextTypes.DEFAULT_TYPE) -> None:
        said = inbound.said_from(update)
        if said is None or self._sink is None:
            return
        reply_to: str | None = None
        if said.reply_to_message_id is not None and said.reply_to_bot:
            key = (said.where.chat_id, said.reply_to_message_id)
            reply_to = self._bound.get(key) or inbound.message_ref(*key)
        event = inbound.text_event(said, self.config.answerers, reply_to)
        if event is None:
            return
        reply = await self._sink.text_received(event)
        log.info("telegram_text", surface=event.surface, handled=reply.handled,
                 accepted=reply.accepted, question_id=reply.question_id)
        if reply.handled and reply.text:
            sent = await self._send(self._bot(), said.where.chat_id, said.where.thread_id,
                                    render.clip(reply.text), None,
                                    reply_parameters=ReplyParameters(
                                        said.message_id, allow_sending_without_reply=True))
            if reply.question_id and not reply.ended:  # "Still needed …": a reply to it counts
                self._bound[(said.where.chat_id, sent.message_id)] = reply.question_id

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        error = context.error
        log.warning("telegram_handler_failed", error=type(error).__name__,
                    detail=str(error) if isinstance(error, DeliveryError) else None)

    async def _webhook(self, request: Request) -> JSONResponse:
        given = request.headers.get(SECRET_HEADER, "")
        if not self._webhook_secret or not hmac.compare_digest(given, self._webhook_secret):
            log.warning("telegram_webhook_refused")
            return error_response(
                403, f"{SECRET_HEADER} does not match the configured secret.", "header")
        app = self._app
        if app is None or not self._ready:
            return error_response(503, "askbridge is starting; Telegram will retry.",
                                  "server", code="starting")
        try:
            data = await read_json(request)
            update = Update.de_json(data, app.bot) if isinstance(data, dict) and isinstance(
                data.get("update_id"), int) else None
        except (BadJson, KeyError, TypeError, ValueError, AttributeError):
            update = None  # PTB indexes the fields it expects: a malformed update raises
        if update is None:
            return error_response(400, "Expected a Telegram Update object.",
                                  code="invalid_request")
        await app.update_queue.put(update)
        return JSONResponse({"ok": True})
