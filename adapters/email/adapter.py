"""The e-mail adapter: prompts sent over SMTP, replies read over IMAP IDLE or posted by a provider,
and a link per choice that answers after a confirm page.

E-mail cannot be edited: a prompt is final once sent, so `finalize` mails a short status only
when `notify_final` is on. Reminders and notices reply in the prompt's thread. The key behind
reply and link tokens is made once and kept in the store (shared by replicas).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import secrets
from collections.abc import Callable, Sequence
from urllib.parse import quote

import structlog
from starlette.routing import BaseRoute

from adapters.email import render
from adapters.email.config import EmailConfig
from adapters.email.ids import address_of, message_ref, parse_ref
from adapters.email.imap import ImapFailed, Watcher, close, open_mailbox
from adapters.email.links import Links, inbound_route
from adapters.email.replies import Replies
from adapters.email.smtp import Mailer, tls_context
from adapters.email.tokens import Tokens
from bridge import (
    AdapterState,
    ButtonAction,
    Capabilities,
    Delivery,
    DeliveryError,
    Finalization,
    InboundSink,
    MessageRef,
    Prompt,
    Queries,
    QuestionId,
    Reminder,
    SurfaceId,
    UserRef,
)

log = structlog.get_logger("askbridge.email")
MAX_LEN = 100_000
"""A mail has no practical length limit; this only keeps a runaway prompt in check."""
KEY = "token_key"


class EmailAdapter:
    platform = "email"

    def __init__(self, config: EmailConfig, base_url: str, smtp_login: tuple[str, str] | None,
                 imap_login: tuple[str, str] | None, inbound_secret: str | None,
                 state: Callable[[str], AdapterState]) -> None:
        self.config = config
        self.link_base = config.link_base or base_url.rstrip("/")
        self._state_of = state
        self._imap_login = imap_login
        self._inbound_secret = inbound_secret
        self._tls = tls_context(config)
        self.mailer = Mailer(config, smtp_login, self._tls)
        self.domain = config.sender_address.domain
        self.tokens: Tokens | None = None
        self.replies: Replies | None = None
        self.watcher: Watcher | None = None
        self._queries: Queries | None = None
        self._sink: InboundSink | None = None
        self._watching: asyncio.Task[None] | None = None
        self.links = Links(lambda: self.tokens, lambda: self._queries, lambda: self._sink,
                           config.locale, self.answer_page)

    # contract ----------------------------------------------------------------------------

    def capabilities(self, surface: SurfaceId) -> Capabilities:
        return Capabilities(reply_to=True, max_len=MAX_LEN, locale=self.config.locale)

    def routes(self) -> Sequence[BaseRoute]:
        secret = self._inbound_secret
        inbound = None if secret is None else inbound_route(
            secret, self._handle, lambda: self.replies is not None)
        return self.links.routes(inbound)

    async def start(self, sink: InboundSink, queries: Queries) -> None:
        state = self._state_of("email")
        self.tokens = Tokens(await _token_key(state))
        self._sink, self._queries = sink, queries
        self.replies = Replies(self.config, self.tokens, sink, queries, state,
                               self.mailer.send, self.envelope)
        log.info("email_started", imap=bool(self.config.imap_host),
                 webhook=self._inbound_secret is not None)

    async def stop(self) -> None:
        await self.disconnect()

    async def deliver(self, surface: SurfaceId, prompt: Prompt) -> MessageRef | None:
        env = self.envelope(prompt.question_id, surface, self._address(surface))
        message = render.prompt(prompt, env, await self._links(surface, prompt))
        await self.mailer.send(message)
        return message_ref(str(message["Message-ID"]))

    async def remind(self, delivery: Delivery, reminder: Reminder) -> MessageRef | None:
        """A reply in the prompt's thread; answering it is answering the prompt (same token)."""
        env = self.envelope(delivery.question_id, delivery.surface,
                            self._address(delivery.surface))
        message = render.reminder(reminder, env, _prompt_id(delivery))
        await self.mailer.send(message)
        return message_ref(str(message["Message-ID"]))

    async def finalize(self, delivery: Delivery, final: Finalization) -> None:
        """Mail cannot be edited: a status mail in the thread when `notify_final`, else nothing."""
        if not self.config.notify_final or delivery.message_ref is None:
            return
        env = self.envelope(delivery.question_id, delivery.surface,
                            self._address(delivery.surface))
        await self.mailer.send(render.final(final, env, _prompt_id(delivery)))

    async def check(self) -> str:
        """`askbridge doctor`: SMTP login, then IMAP login; the message names the one that failed."""
        found = [await self.mailer.check()]
        if self.config.imap_host and self._imap_login:
            try:
                client, _ = await open_mailbox(self.config, self._imap_login, self._tls)
            except ImapFailed as exc:
                raise DeliveryError(str(exc)) from None
            except Exception as exc:  # any network or TLS failure, said in words
                raise DeliveryError(
                    f"IMAP: {self.config.imap_host}:{self.config.imap_port_or_default} could not "
                    f"be reached or refused TLS ({type(exc).__name__}: {exc})") from None
            await close(client)
            found.append(f"IMAP logged in at {self.config.imap_host}, mailbox "
                         f"{self.config.mailbox}")
        return "; ".join(found)

    # LongConnection: only the leader reads the mailbox ------------------------------------

    async def connect(self) -> None:
        if (self._watching is not None and not self._watching.done()) or self.replies is None:
            return
        if not self.config.imap_host or self._imap_login is None:
            return
        self.watcher = Watcher(self.config, self._imap_login, self._tls, self._state_of("email"),
                               self._handle)
        self._watching = asyncio.create_task(self.watcher.run(), name="email-imap")
        log.info("email_imap_started", host=self.config.imap_host, mailbox=self.config.mailbox)

    async def disconnect(self) -> None:
        task, self._watching = self._watching, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            log.info("email_imap_stopped")

    # helpers -----------------------------------------------------------------------------

    async def _handle(self, raw: bytes) -> str:
        if self.replies is None:
            raise RuntimeError("the e-mail adapter is not started")
        return await self.replies.handle(raw)

    def envelope(self, question_id: QuestionId, surface: SurfaceId, to: str) -> render.Envelope:
        assert self.tokens is not None, "start() made the tokens"
        reply_to = self.config.reply_to.replace("{token}", self.tokens.reply(question_id, surface))
        return render.Envelope(self.config.sender_address, to, reply_to,
                               render.thread_root(question_id, self.domain), self.domain)

    def card_url(self, prompt: Prompt) -> str:
        return f"{self.link_base}/#{quote(prompt.agent, safe='')}/{quote(prompt.session, safe='')}"

    async def answer_page(self, surface: SurfaceId, prompt: Prompt) -> str:
        """The signed answer page for this address (no sign-in needed: a phone opens it), or
        the web card when the bridge makes no links."""
        found = self._queries and await self._queries.card_link(
            prompt.question_id, surface, UserRef(address_of(surface)))
        return found or self.card_url(prompt)

    async def _links(self, surface: SurfaceId, prompt: Prompt) -> render.Links:
        assert self.tokens is not None
        one = len(prompt.questions) == 1 and not prompt.questions[0].multi_select

        def url(action: ButtonAction) -> str:
            assert self.tokens is not None
            token = self.tokens.link(prompt.question_id, surface, action, render.shown(prompt))
            return f"{self.link_base}/e/{token}"

        options = tuple((label, url(n)) for n, (label, _) in
                        enumerate(prompt.questions[0].options)) if one else ()
        return render.Links(options, url("skip"), await self.answer_page(surface, prompt))

    @staticmethod
    def _address(surface: SurfaceId) -> str:
        try:
            return address_of(surface)
        except ValueError:
            raise DeliveryError(f"{surface} is not an e-mail address; write email:"
                                "<address>, like email:ana@example.org") from None


def _prompt_id(delivery: Delivery) -> str | None:
    return parse_ref(delivery.message_ref) if delivery.message_ref else None


async def _token_key(state: AdapterState) -> bytes:
    """The key behind every token: made on the first start, read on every later one."""
    kept = await state.get(KEY)
    if kept is None:
        await state.put(KEY, base64.b64encode(secrets.token_bytes(32)).decode())
        # Read back what the store holds. Two replicas making a key in the same instant would
        # each keep their own until restarted; the first start of a deployment makes it.
        kept = await state.get(KEY)
    assert kept is not None
    return base64.b64decode(kept)
