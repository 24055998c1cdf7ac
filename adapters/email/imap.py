"""Reading replies over IMAP (aioimaplib): log in, IDLE, fetch what is new, remember the last UID.

Library: aioimaplib — the maintained asyncio IMAP client with IDLE (imaplib blocks, imap-tools
is built on it). It has no STARTTLS of its own, so `_starttls` upgrades the connection with the
event loop's `start_tls` after the server's OK, as RFC 3501 describes.

The position is `<UIDVALIDITY>:<last UID handled>` in the adapter's state, written after each
message, so a restart takes what arrived meanwhile and nothing twice. With no position yet,
mail already in the box is history and is left alone. A message is only ever read (BODY.PEEK,
never flagged, moved or deleted), and at most `max_message_bytes` of it: the text of a reply
comes before its attachments.
"""

from __future__ import annotations

import asyncio
import re
import ssl
from collections.abc import Awaitable, Callable

import aioimaplib
import structlog

from adapters.email.config import EmailConfig
from bridge import AdapterState, backoff

log = structlog.get_logger("askbridge.email")
FAILURES = (aioimaplib.AioImapException, OSError, TimeoutError, asyncio.IncompleteReadError)
LOST = [b"* BYE connection lost"]
MAX_TRIES = 3
"""A message whose handling failed this often is skipped (logged), so one cannot stall the box."""


class ImapFailed(Exception):
    """The server refused a step; the message says which and why."""


class HandlingFailed(Exception):
    """Handing a message in failed on our side; the connection is reopened and it is retried."""


def _text(lines: list[object]) -> str:
    return "\n".join(x.decode(errors="replace") if isinstance(x, bytes | bytearray) else str(x)
                     for x in lines)


async def _starttls(client: aioimaplib.IMAP4, context: ssl.SSLContext, host: str) -> None:
    protocol = client.protocol
    response = await asyncio.wait_for(
        protocol.execute(aioimaplib.Command("STARTTLS", protocol.new_tag())), client.timeout)
    if response.result != "OK":
        raise ImapFailed(f"the IMAP server refused STARTTLS ({_text(response.lines)})")
    loop = asyncio.get_running_loop()
    protocol.transport = await loop.start_tls(protocol.transport, protocol, context,
                                              server_hostname=host)
    await client.protocol.capability()


async def open_mailbox(config: EmailConfig, login: tuple[str, str],
                       context: ssl.SSLContext) -> tuple[aioimaplib.IMAP4, str]:
    """Connected, logged in and the mailbox selected; the SELECT answer's text."""
    host, port, timeout = config.imap_host or "", config.imap_port_or_default, config.timeout_seconds
    client = (aioimaplib.IMAP4_SSL(host, port, timeout=timeout, ssl_context=context)
              if config.imap_tls == "tls" else aioimaplib.IMAP4(host, port, timeout=timeout))
    # A connection lost while in IDLE would otherwise go unnoticed until IDLE is renewed.
    client.protocol.conn_lost_cb = lambda _: client.protocol.idle_queue.put_nowait(LOST)
    try:
        await client.wait_hello_from_server()
        if config.imap_tls == "starttls":
            await _starttls(client, context, host)
        answer = await client.login(*login)
        if answer.result != "OK":
            raise ImapFailed(f"IMAP login failed: the server answered {_text(answer.lines)}; "
                             "check imap_user_env and imap_password_env")
        selected = await client.select(config.mailbox)
        if selected.result != "OK":
            raise ImapFailed(f"the mailbox {config.mailbox!r} could not be opened "
                             f"({_text(selected.lines)}); check `mailbox`")
    except BaseException:
        await close(client)
        raise
    return client, _text(selected.lines)


async def close(client: aioimaplib.IMAP4) -> None:
    try:
        await asyncio.wait_for(client.logout(), 5)
    except (*FAILURES, aioimaplib.Abort):
        pass  # the connection is going away either way


def _number(pattern: str, text: str) -> int | None:
    found = re.search(pattern, text)
    return int(found.group(1)) if found else None


class Watcher:
    """Keeps one IMAP connection in IDLE and hands each new message's bytes to `handle`."""

    def __init__(self, config: EmailConfig, login: tuple[str, str], context: ssl.SSLContext,
                 state: AdapterState, handle: Callable[[bytes], Awaitable[str]]) -> None:
        self.config, self.login, self.context = config, login, context
        self.state = state
        self.handle = handle
        self.key = f"uid:{config.mailbox}"
        self._tries: dict[int, int] = {}
        self.idling = asyncio.Event()
        """Set while the connection waits in IDLE (tests wait on it instead of sleeping)."""

    async def run(self) -> None:
        """Until cancelled: a connection lost after it worked is reopened at once, then with
        the backoff (doubling to five minutes) while the server stays away."""
        while True:
            if await self._attempt():
                continue
            async for delay in backoff(self.config.retry_base_seconds, 300.0):
                log.info("email_imap_retrying", after_seconds=round(delay, 1))
                if await self._attempt():
                    break

    async def _attempt(self) -> bool:
        """One connection, until it fails; whether it had logged in."""
        self.idling.clear()
        try:
            client, selected = await open_mailbox(self.config, self.login, self.context)
        except (*FAILURES, ImapFailed) as exc:
            log.warning("email_imap_failed", step="connect", error=f"{type(exc).__name__}: {exc}")
            return False
        except Exception as exc:  # a client library surprise must not end the watching for good
            log.error("email_imap_failed", step="connect", error=repr(exc))
            return False
        try:
            await self._watch(client, selected)
        except (*FAILURES, ImapFailed, HandlingFailed) as exc:
            log.warning("email_imap_failed", step="watch", error=f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # a client library surprise must not end the watching for good
            log.error("email_imap_failed", step="watch", error=repr(exc))
        finally:
            self.idling.clear()
            await close(client)
        return True

    async def _watch(self, client: aioimaplib.IMAP4, selected: str) -> None:
        validity = _number(r"UIDVALIDITY (\d+)", selected) or 0
        last = await self._position(validity, _number(r"UIDNEXT (\d+)", selected))
        if not client.has_capability("IDLE"):
            raise ImapFailed("the IMAP server does not offer IDLE")
        while True:
            last = await self._catch_up(client, validity, last)
            await self._idle(client)

    async def _position(self, validity: int, next_uid: int | None) -> int:
        kept = await self.state.get(self.key)
        if kept is not None:
            kept_validity, _, kept_uid = kept.partition(":")
            if kept_validity == str(validity):
                return int(kept_uid)
            log.warning("email_uidvalidity_changed", mailbox=self.config.mailbox)
        last = (next_uid or 1) - 1
        await self.state.put(self.key, f"{validity}:{last}")
        return last

    async def _catch_up(self, client: aioimaplib.IMAP4, validity: int, last: int) -> int:
        found = await client.uid_search(f"UID {last + 1}:*")
        if found.result != "OK":
            raise ImapFailed(f"UID SEARCH failed ({_text(found.lines)})")
        uids = sorted(int(u) for line in found.lines[:1] for u in _text([line]).split()
                      if u.isdigit() and int(u) > last)
        for uid in uids:
            raw = await self._fetch(client, uid)
            if raw is not None:
                await self._take(uid, raw)
            last = uid
            await self.state.put(self.key, f"{validity}:{last}")
        return last

    async def _fetch(self, client: aioimaplib.IMAP4, uid: int) -> bytes | None:
        answer = await client.uid("fetch", str(uid),
                                  f"(BODY.PEEK[]<0.{self.config.max_message_bytes}>)")
        if answer.result != "OK":
            raise ImapFailed(f"UID FETCH {uid} failed ({_text(answer.lines)})")
        literals = [bytes(x) for x in answer.lines if isinstance(x, bytearray)]
        return literals[0] if literals else None

    async def _take(self, uid: int, raw: bytes) -> None:
        tries = self._tries.get(uid, 0) + 1
        self._tries[uid] = tries
        try:
            outcome = await self.handle(raw)
        except Exception as exc:  # our own failure (the store away): retried, then skipped
            if tries < MAX_TRIES:
                raise HandlingFailed(f"message UID {uid}: {exc!r}") from exc
            log.error("email_message_skipped", uid=uid, tries=tries, error=repr(exc))
            outcome = "skipped"
        self._tries.pop(uid, None)
        log.info("email_message", uid=uid, outcome=outcome)

    async def _idle(self, client: aioimaplib.IMAP4) -> None:
        """Wait in IDLE until the server says something changed, or `idle_seconds` pass."""
        idle = await client.idle_start(timeout=self.config.idle_seconds)
        self.idling.set()
        try:
            while client.has_pending_idle():
                pushed = await client.wait_server_push(timeout=self.config.idle_seconds + 30)
                said = _text(pushed if isinstance(pushed, list) else [pushed])
                if "BYE" in said:
                    raise ImapFailed(f"the server closed the connection ({said.strip()})")
                if pushed == aioimaplib.STOP_WAIT_SERVER_PUSH or "EXISTS" in said:
                    break
        finally:
            self.idling.clear()
            client.idle_done()
        await asyncio.wait_for(idle, self.config.timeout_seconds)
