"""Slack over slack-bolt: Block Kit prompts out, clicks/modals/messages in (Socket Mode or HTTP)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Collection, Sequence
from functools import partial
from typing import Any

import aiohttp
import structlog
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient
from starlette.routing import BaseRoute, Route

from adapters.slack import render
from adapters.slack.approval import CALLBACK as APPROVAL_CALLBACK
from adapters.slack.approval_taps import ApprovalTaps
from adapters.slack.calls import NETWORK as _NETWORK
from adapters.slack.calls import api_error as _api_error
from adapters.slack.calls import library_logger as _library_logger
from adapters.slack.calls import not_client_wins as _not_client_wins
from adapters.slack.calls import retry_handlers as _retry_handlers
from adapters.slack.calls import verify_tokens
from adapters.slack.calls import whoami as _whoami
from adapters.slack.config import SlackConfig
from adapters.slack.events import EVENTS_PATH, EventsRoute
from adapters.slack.ids import message_ref, parse_ref, surface_for, target_of
from adapters.slack.inbound import Click, click_from, event_from
from adapters.slack.limits import SlackLimits
from adapters.slack.mrkdwn import escape
from adapters.slack.native import OWN_CALLBACK
from adapters.slack.render import OTHER_CALLBACK, other_modal
from adapters.slack.taps import Taps
from bridge import (
    Capabilities,
    Delivery,
    DeliveryError,
    Finalization,
    InboundReply,
    InboundSink,
    MessageRef,
    Pace,
    Priority,
    Prompt,
    Queries,
    Reminder,
    SurfaceId,
    TextReceived,
    backoff,
    tr,
)

log = structlog.get_logger("askbridge.slack").bind(platform="slack")


class SlackAdapter:
    platform = "slack"

    def __init__(self, config: SlackConfig, bot_token: str, app_token: str = "",
                 signing_secret: str = "", thread_surfaces: Collection[str] = ()) -> None:
        self.config = config
        self._app_token = app_token
        self._thread_surfaces = frozenset(thread_surfaces)
        self.sink: InboundSink | None = None
        self.queries: Queries | None = None
        self._socket: AsyncSocketModeHandler | None = None
        self._connector: asyncio.Task[None] | None = None
        self._connected = asyncio.Event()
        quiet = _library_logger("askbridge.slack.bolt")
        # Bolt also reads $SLACK_BOT_TOKEN itself and warns that our `client` wins over it;
        # that is intended, so the warning would only confuse whoever reads doctor's output.
        if _not_client_wins not in quiet.filters:
            quiet.addFilter(_not_client_wins)
        self.client = AsyncWebClient(token=bot_token, base_url=config.base_url, timeout=10,
                                     retry_handlers=_retry_handlers(config.retries), logger=quiet)
        self.app = AsyncApp(client=self.client, signing_secret=signing_secret, logger=quiet,
                            request_verification_enabled=config.mode == "http")
        self.app.action(re.compile(r"^ab:"))(self._on_action)
        self.app.view(OTHER_CALLBACK)(self._on_modal)
        self.approvals = ApprovalTaps(self)
        self.app.view(APPROVAL_CALLBACK)(self.approvals.on_submit)
        self.native = Taps(self)
        self.pace = Pace(SlackLimits() if config.pace else lambda surface, priority: ())
        """Paced: the core waits here for room before each prompt, reminder and final edit."""
        self.app.view(OWN_CALLBACK)(self._on_own_words)
        self.app.event("message")(self._on_message)
        self._events = EventsRoute(self.app)

    # lifecycle ------------------------------------------------------------------------------

    def capabilities(self, surface: SurfaceId) -> Capabilities:
        in_thread = target_of(surface)[1] is not None
        every = self.config.native == "all"
        return Capabilities(buttons=True, edits=True, modals=True, reply_to=not in_thread,
                            max_len=3900, native_multi=every, native_several=every,
                            locale=self.config.locale)

    def routes(self) -> Sequence[BaseRoute]:
        if self.config.mode != "http":
            return []
        return [Route(EVENTS_PATH, self._events.handle, methods=["POST"])]

    async def start(self, sink: InboundSink, queries: Queries) -> None:
        self.sink, self.queries = sink, queries
        # One connection pool for every Web API call: without a session of its own the SDK
        # opens (and closes) a connection for each call.
        self.client.session = aiohttp.ClientSession()
        await verify_tokens(self.client, self.config, self._app_token)

    async def connect(self) -> None:
        """Leader only (LongConnection): open the Socket Mode websocket (socket mode)."""
        if self.config.mode != "socket" or self._socket is not None:
            return
        self._socket = AsyncSocketModeHandler(self.app, self._app_token,
                                              logger=_library_logger("askbridge.slack.socket"))
        self._connected.clear()
        self._connector = asyncio.create_task(self._connect())
        try:
            await asyncio.wait_for(self._connected.wait(), self.config.connect_timeout_seconds)
        except TimeoutError:
            log.warning("slack_socket_not_connected_yet", retrying=True)

    async def disconnect(self) -> None:
        connector, socket = self._connector, self._socket
        self._connector = self._socket = None
        if connector is not None:
            connector.cancel()
            await asyncio.gather(connector, return_exceptions=True)
        if socket is not None:
            await socket.close_async()  # type: ignore[no-untyped-call]

    async def _connect(self) -> None:
        """First connection with backoff; slack_sdk reconnects on its own after that."""
        assert self._socket is not None
        pauses = backoff(1.0, 60.0)
        while True:
            try:
                await asyncio.wait_for(self._socket.connect_async(),  # type: ignore[no-untyped-call]
                                       self.config.connect_timeout_seconds)
            except TimeoutError:
                log.warning("slack_socket_connect_failed")
            else:
                log.info("slack_socket_connected")
                self._connected.set()
                return
            await anext(pauses)

    async def stop(self) -> None:
        await self.disconnect()
        self.sink = None
        session, self.client.session = self.client.session, None
        if session is not None:
            await session.close()

    async def check(self) -> str:
        """auth.test with the bot token (and, in Socket Mode, apps.connections.open)."""
        return await _whoami(self.client, self.config, self._app_token)

    # outbound -------------------------------------------------------------------------------

    async def deliver(self, surface: SurfaceId, prompt: Prompt) -> MessageRef | None:
        channel, thread = target_of(surface)
        if not channel:
            raise DeliveryError(f"{surface} names no Slack channel; use slack:<channel_id>.")
        ref: MessageRef | None = None
        for args in render.prompt(prompt):  # the last one holds the controls: its ref counts
            try:
                sent = await self.pace.call(surface, Priority.PROMPT, partial(
                    self.client.chat_postMessage, channel=channel, thread_ts=thread, **args))
            except _NETWORK as exc:
                log.warning("slack_send_failed", question_id=prompt.question_id, surface=surface,
                            error=_api_error(exc))
                raise DeliveryError(f"Slack did not take the message ({_api_error(exc)}); check "
                                    "the channel id and that the app is in the channel.") from exc
            ref = message_ref(str(sent["channel"]), str(sent["ts"]))
        return ref

    async def remind(self, delivery: Delivery, reminder: Reminder) -> MessageRef | None:
        """A reply in the prompt's thread (the surface's own thread when it is one)."""
        channel, thread = target_of(delivery.surface)
        ts = thread or (parse_ref(delivery.message_ref)[1] if delivery.message_ref else None)
        try:
            sent = await self.pace.call(delivery.surface, Priority.REMINDER, partial(
                self.client.chat_postMessage, channel=channel, text=escape(reminder.text),
                thread_ts=ts))
        except _NETWORK as exc:
            raise DeliveryError(f"Slack did not take the reminder ({_api_error(exc)})") from exc
        return message_ref(str(sent["channel"]), str(sent["ts"]))

    async def finalize(self, delivery: Delivery, final: Finalization) -> None:
        if delivery.message_ref is None:
            return
        channel, ts = parse_ref(delivery.message_ref)
        try:
            await self.pace.edit(delivery.surface, delivery.message_ref, partial(
                self.client.chat_update, channel=channel, ts=ts, **render.final(final)))
        except _NETWORK as exc:
            raise DeliveryError(f"Slack did not update the message ({_api_error(exc)})") from exc

    async def update(self, channel: str, ts: str, args: dict[str, Any]) -> None:
        """Edit a still-open prompt in place (selections shown); failures are logged."""
        try:
            await self.pace.edit(surface_for(channel), message_ref(channel, ts), partial(
                self.client.chat_update, channel=channel, ts=ts, **args))
        except _NETWORK as exc:
            log.warning("slack_update_failed", channel=channel, error=_api_error(exc))

    async def tell(self, channel: str, user: str, text: str, thread_ts: str | None) -> None:
        """An ephemeral note only `user` sees; failures are logged, never raised."""
        args: dict[str, Any] = {"thread_ts": thread_ts} if thread_ts else {}
        try:
            await self.client.chat_postEphemeral(channel=channel, user=user, text=escape(text),
                                                 **args)
        except _NETWORK as exc:
            log.warning("slack_ephemeral_failed", channel=channel, error=_api_error(exc))

    # inbound --------------------------------------------------------------------------------

    async def _on_action(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()  # selection changes too: Slack wants every action acknowledged at once
        if await self.approvals.on_action(body) or await self.native.on_action(body):
            return
        click = click_from(body, self.config.answerers)
        if click is None or self.sink is None:
            return
        reply = await self.sink.button_pressed(click.event)
        log.info("slack_click", question_id=click.event.question_id, action=click.event.action,
                 accepted=reply.accepted, authorized=click.event.authorized)
        if click.event.action == "other" and reply.accepted:
            await self._ask_other(click)
        elif reply.text and not (reply.accepted and reply.ended):
            await self.tell(click.channel, click.event.user, reply.text, click.thread_ts)

    async def _ask_other(self, click: Click) -> None:
        """Open the free-text modal; without a usable trigger, ask for a thread reply."""
        assert self.queries is not None
        prompt = await self.queries.prompt_for(click.event.question_id, click.event.surface)
        if prompt is None:
            return
        if click.trigger_id:
            view = other_modal(prompt.question_id, click.event.surface, prompt.title,
                               prompt.questions[0].question, prompt.locale)
            try:
                await self.client.views_open(trigger_id=click.trigger_id, view=view)
                return
            except _NETWORK as exc:
                log.info("slack_modal_unavailable", error=_api_error(exc))
        thread = click.thread_ts or click.message_ts
        await self.tell(click.channel, click.event.user, tr(
            prompt.locale, "Reply in this message's thread with your own answer."), thread)

    async def _on_modal(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        event = event_from(body, self.config.answerers)
        if not isinstance(event, TextReceived) or self.sink is None:
            return
        reply = await self.sink.text_received(event)
        log.info("slack_modal_submitted", question_id=reply.question_id, accepted=reply.accepted)
        if reply.text and not (reply.accepted and reply.ended):
            channel, thread = target_of(event.surface)
            await self.tell(channel, event.user, reply.text, thread)

    async def _on_own_words(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        await self.native.on_own_words(body)

    async def _on_message(self, ack: AsyncAck, event: dict[str, Any]) -> None:
        await ack()
        text = event_from(event, self.config.answerers, self._thread_surfaces)
        if not isinstance(text, TextReceived) or self.sink is None:
            return
        reply: InboundReply = await self.sink.text_received(text)
        if not reply.handled:
            return
        log.info("slack_text_received", question_id=reply.question_id, accepted=reply.accepted)
        if reply.text:
            thread = event.get("thread_ts")
            await self.tell(str(event["channel"]), text.user, reply.text,
                             str(thread) if thread else None)
