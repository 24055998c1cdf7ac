"""The Discord adapter: discord.py's gateway client for clicks and replies, its REST for prompts."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import discord
import structlog
import yarl
from discord.http import Route
from pydantic import BaseModel, ConfigDict

from adapters.discord import inbound, interactions, render
from adapters.discord.config import DiscordConfig
from adapters.discord.ids import channel_of, message_ref, parse_ref
from adapters.discord.problems import bad_token as _bad_token
from adapters.discord.problems import start_problem as _start_problem
from adapters.discord.problems import whoami as _whoami
from bridge import (
    Capabilities,
    Delivery,
    DeliveryError,
    Finalization,
    InboundSink,
    MessageRef,
    Prompt,
    Queries,
    Reminder,
    SurfaceId,
    backoff,
)

log = structlog.get_logger("askbridge.discord")
LOGIN_BACKOFF_MAX = 60.0


class SentMessage(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    channel_id: str


def point_at(config: DiscordConfig) -> None:
    """Aim discord.py at the configured API and gateway (proxies, tests' fakes)."""
    Route.BASE = config.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(config.gateway_url)


def intents(config: DiscordConfig) -> discord.Intents:
    """Only what prompts need; Message Content (privileged) only with `text_replies`."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    wanted.guild_messages = True
    wanted.dm_messages = True
    wanted.message_content = config.text_replies
    return wanted


class _Client(discord.Client):
    """Routes the gateway events askbridge cares about to the adapter."""

    def __init__(self, adapter: DiscordAdapter, **options: Any) -> None:
        super().__init__(**options)
        self.adapter = adapter

    async def on_ready(self) -> None:
        self.adapter.ready.set()
        log.info("discord_ready", user=str(self.user), guilds=len(self.guilds))

    async def on_resumed(self) -> None:
        log.info("discord_resumed")

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        await self.adapter.on_interaction(interaction)

    async def on_message(self, message: discord.Message) -> None:
        await self.adapter.on_message(message)


class DiscordAdapter:
    platform = "discord"

    def __init__(self, config: DiscordConfig, token: str) -> None:
        self.config = config
        self._token = token
        self._sink: InboundSink | None = None
        self._queries: Queries | None = None
        self._client: _Client | None = None
        self._runner: asyncio.Task[None] | None = None
        self._login: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()

    def capabilities(self, surface: SurfaceId) -> Capabilities:
        every = self.config.native == "all"
        return Capabilities(buttons=True, edits=True, modals=True, reply_to=True,
                            max_len=render.MAX_CONTENT, native_multi=every, native_several=every,
                            locale=self.config.locale)

    # lifecycle ---------------------------------------------------------------------------

    async def start(self, sink: InboundSink, queries: Queries) -> None:
        """Log in over REST (enough to send and edit); the gateway opens in `connect()`."""
        self._sink, self._queries = sink, queries
        point_at(self.config)
        await self._log_in()

    async def _log_in(self) -> None:
        self.ready = asyncio.Event()
        self._client = _Client(
            self, intents=intents(self.config), max_messages=None,
            guild_ready_timeout=self.config.guild_ready_timeout,
            allowed_mentions=discord.AllowedMentions.none(), chunk_guilds_at_startup=False)
        self._login = asyncio.create_task(self._login_loop(self._client))
        done, _ = await asyncio.wait({self._login}, timeout=self.config.ready_timeout)
        if self._login in done and self._login.exception() is not None:
            problem = _start_problem(self._login.exception(), self.config)
            await self._client.close()
            raise problem
        if not done:
            log.warning("discord_not_logged_in_yet", waited=self.config.ready_timeout)

    async def connect(self) -> None:
        """Leader only (LongConnection): open the gateway; return once READY or after
        `ready_timeout` (still connecting). Raises `ConfigError` for what retrying cannot fix."""
        client = self._client
        if client is None or self._runner is not None:
            return
        self._runner = asyncio.create_task(self._gateway(client))
        self._runner.add_done_callback(_gateway_ended)
        ready = asyncio.create_task(self.ready.wait())
        done, _ = await asyncio.wait({ready, self._runner}, timeout=self.config.ready_timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        ready.cancel()
        if self._runner in done:
            raise _start_problem(self._runner.exception(), self.config)
        if not done:
            log.warning("discord_not_ready", waited=self.config.ready_timeout)

    async def disconnect(self) -> None:
        """Close the gateway; log in again over REST so this replica can still send."""
        if self._runner is None:
            return
        await self._close()
        if self._sink is not None:
            await self._log_in()

    async def _login_loop(self, client: _Client) -> None:
        pauses = backoff(1.0, LOGIN_BACKOFF_MAX)
        while not client.is_closed():
            try:
                await client.login(self._token)
                return
            except (aiohttp.ClientError, OSError, discord.DiscordServerError) as exc:
                log.warning("discord_login_retry", error=type(exc).__name__)
            await anext(pauses)

    async def _gateway(self, client: _Client) -> None:
        if self._login is not None:
            await self._login
        # discord.py resumes or re-identifies by itself after gateway loss (op 7, drops), but an
        # event it cannot parse raises out of connect(): reconnect then, or Discord stays deaf.
        pauses = backoff(1.0, LOGIN_BACKOFF_MAX)
        while not client.is_closed():
            try:
                await client.connect(reconnect=True)
                return
            except (discord.LoginFailure, discord.PrivilegedIntentsRequired):
                raise
            except Exception as exc:
                log.warning("discord_gateway_error", error=type(exc).__name__)
            await anext(pauses)

    async def stop(self) -> None:
        await self._close()
        log.info("discord_closed")

    async def _close(self) -> None:
        client, runner, login = self._client, self._runner, self._login
        self._client = self._runner = self._login = None
        if login is not None and not login.done():
            login.cancel()
        if client is not None:
            await client.close()
        if runner is not None:  # its end (also cancelled, while still logging in) is not ours
            await asyncio.wait({runner}, timeout=10)

    async def check(self) -> str:
        """`askbridge doctor`: who the token belongs to (GET users/@me)."""
        point_at(self.config)
        return await _whoami(self.config, self._token)

    # outbound ----------------------------------------------------------------------------

    async def deliver(self, surface: SurfaceId, prompt: Prompt) -> MessageRef | None:
        channel_id = channel_of(surface)
        ref: MessageRef | None = None
        for payload in render.prompt(prompt):  # the last one holds the controls: its ref counts
            ref = await self._post(channel_id, payload)
        return ref

    async def remind(self, delivery: Delivery, reminder: Reminder) -> MessageRef | None:
        """A new message that replies to (references) the prompt."""
        ids = parse_ref(delivery.message_ref or "")
        return await self._post(channel_of(delivery.surface),
                                render.reminder(reminder, ids[1] if ids else None))

    async def _post(self, channel_id: int, payload: dict[str, Any]) -> MessageRef:
        route = Route("POST", "/channels/{channel_id}/messages", channel_id=channel_id)
        sent = SentMessage.model_validate(await self._request(route, payload, channel_id))
        return message_ref(channel_id, sent.id)

    async def finalize(self, delivery: Delivery, final: Finalization) -> None:
        ids = parse_ref(delivery.message_ref or "")
        if ids is None:
            return
        channel_id, message_id = ids
        await self._edit(channel_id, message_id, render.final(final, delivery.surface))

    async def _edit(self, channel_id: int, message_id: int, body: dict[str, Any]) -> None:
        route = Route("PATCH", "/channels/{channel_id}/messages/{message_id}",
                      channel_id=channel_id, message_id=message_id)
        await self._request(route, body, channel_id)

    async def _request(self, route: Route, payload: dict[str, Any], channel_id: int) -> Any:
        """One REST call; discord.py waits out 429s per bucket (retry_after) and retries 5xx."""
        if self._client is None or self._client.http.token is None:
            raise DeliveryError("askbridge is not logged in to Discord (yet); it keeps retrying "
                                "in the background, check the network and [discord] api_base")
        try:
            return await self._client.http.request(route, json=payload)
        except discord.Forbidden:
            problem = (f"the bot may not post in Discord channel {channel_id}; give it View "
                       "Channel, Send Messages (and Send Messages in Threads) there")
        except discord.NotFound:
            problem = (f"Discord channel {channel_id} or its message was not found; check the "
                       "surface's channel id and that the bot was invited to that server")
        except discord.RateLimited as exc:
            problem = f"Discord rate-limited the bot for {exc.retry_after:.0f} s"
        except discord.HTTPException as exc:
            problem = (_bad_token(self.config) if exc.status == 401 else
                       f"Discord refused the request (HTTP {exc.status}, code {exc.code})")
        except (aiohttp.ClientError, OSError) as exc:
            problem = f"Discord could not be reached ({type(exc).__name__})"
        log.warning("discord_request_failed", method=route.method, channel=channel_id,
                    error=problem)
        raise DeliveryError(problem)

    # inbound -----------------------------------------------------------------------------

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if self._sink is None or self._queries is None:
            return
        try:
            await interactions.dispatch(interaction, self._sink, self._queries, self.config.answerers,
                                        self._edit)
        except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
            log.warning("discord_interaction_failed", channel=interaction.channel_id,
                        error=type(exc).__name__)

    async def on_message(self, message: discord.Message) -> None:
        client = self._client
        if self._sink is None or client is None or client.user is None or message.author.bot:
            return
        me = client.user.id
        authorized = inbound.may_answer(message.author.id,
                                        isinstance(message.channel, discord.DMChannel),
                                        self.config.answerers)
        resolved = message.reference.resolved if message.reference else None
        to_me = isinstance(resolved, discord.Message) and resolved.author.id == me
        content = inbound.without_mention(message.content, me)
        if not content or not (authorized or to_me):
            return  # others' chatter in a server channel is none of our business
        replied = message.reference.message_id if message.reference else None
        event = inbound.message_event(message.channel.id, message.author.id, content,
                                      authorized, replied)
        reply = await self._sink.text_received(event)
        if reply.handled and reply.text:
            try:
                await message.reply(reply.text, mention_author=False)
            except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
                log.warning("discord_reply_failed", channel=message.channel.id,
                            error=type(exc).__name__)


def _gateway_ended(runner: asyncio.Task[None]) -> None:
    """discord.py gives up only on what retrying cannot fix (token, intents): say so."""
    if not runner.cancelled() and runner.exception() is not None:
        log.error("discord_gateway_stopped", error=type(runner.exception()).__name__)
