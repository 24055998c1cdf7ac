"""The Matrix adapter: the numbered prompt as a message plus one native poll per question.

Library: matrix-nio (not mautrix-python). Both are maintained, asyncio and aiohttp based; nio
honours `M_LIMIT_EXCEEDED` itself — it sleeps the homeserver's `retry_after_ms` and resends,
a bounded number of times (`max_rate_limited`) — and returns error responses instead of raising,
while mautrix's request errors drop `retry_after_ms`, so we would rewrite its rate limiting.
nio ships no `py.typed`: pyproject has a mypy override, and this package keeps its own typed
seams (`client.py` returns plain ids and dicts, `inbound.py` parses raw JSON with pydantic).
End-to-end encryption is off: invite the bot to unencrypted rooms (docs/matrix.md).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import structlog

from adapters.matrix import render
from adapters.matrix.client import MatrixClient
from adapters.matrix.config import MatrixConfig
from adapters.matrix.ids import Sent, message_ref, parse_ref, room_of, txn
from adapters.matrix.inbound import Mark
from adapters.matrix.sync import Syncer, remember
from bridge import (
    AdapterState,
    Capabilities,
    ConfigError,
    Delivery,
    DeliveryError,
    Finalization,
    InboundSink,
    MessageRef,
    Prompt,
    Queries,
    Reminder,
    SurfaceId,
)

log = structlog.get_logger("askbridge.matrix")


class MatrixAdapter:
    platform = "matrix"

    def __init__(self, config: MatrixConfig, token: str,
                 state: Callable[[str], AdapterState]) -> None:
        self.config = config
        self._token = token
        self._state = state
        self._client: MatrixClient | None = None
        self._sink: InboundSink | None = None
        self._queries: Queries | None = None
        self._marks: dict[str, Mark] = {}
        self._syncing: asyncio.Task[None] | None = None

    # contract ----------------------------------------------------------------------------

    def capabilities(self, surface: SurfaceId) -> Capabilities:
        every = self.config.native == "all"
        return Capabilities(buttons=True, edits=True, reply_to=True, max_len=render.MAX_TEXT,
                            native_multi=every, native_several=every, locale=self.config.locale)

    async def start(self, sink: InboundSink, queries: Queries) -> None:
        """Ready to send and finalize; receiving starts with `connect()` (the leader only)."""
        self._sink, self._queries = sink, queries
        self._client = MatrixClient(self.config, self._token)
        try:
            await self._client.whoami()
        except DeliveryError as exc:
            if exc.__cause__ is None:  # the homeserver answered: it refuses the token
                raise ConfigError(f"Matrix: {exc}.") from None
            # Unreachable: sending fails per call and the sync loop backs off until it is back.
            log.warning("matrix_unreachable_at_start", error=str(exc))
        log.info("matrix_started", user_id=self.config.user_id, native=self.config.native)
        if not self.config.answerers:
            log.warning("matrix_no_answerers", hint="list who may answer in [matrix] answerers")

    async def stop(self) -> None:
        await self.disconnect()
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    async def deliver(self, surface: SurfaceId, prompt: Prompt) -> MessageRef | None:
        client, room, qid = self._running(), self._room(surface), prompt.question_id
        text_id, polls = "", []
        for event_type, content, part in render.prompt(prompt, self.config.native):
            polling = event_type == render.POLL_START
            try:
                event_id = await client.send(room, event_type, content,
                                             txn(qid, room, part, render.shown(prompt)))
            except DeliveryError as exc:
                if not polling:
                    raise
                log.warning("matrix_poll_refused", question_id=qid, surface=surface,
                            error=str(exc))
                break  # the text is out and answerable: keep it
            index = content.get(render.POLL_INDEX) if polling else None
            remember(self._marks, event_id, Mark(question_id=qid, index=index,
                                                 shown=content.get(render.SHOWN)))
            if polling:
                polls.append(event_id)
            else:
                text_id = event_id  # the last text part: the one finalization edits
        log.debug("matrix_sent", question_id=qid, surface=surface, polls=len(polls))
        return message_ref(Sent(room, text_id, tuple(polls)))

    async def finalize(self, delivery: Delivery, final: Finalization) -> None:
        """End every poll, then edit the prompt text to carry the status line."""
        if delivery.message_ref is None:
            return
        client = self._running()
        sent = parse_ref(delivery.message_ref)
        qid, room = delivery.question_id, sent.room_id
        problems: list[str] = []
        for event_type, content, part in render.final(sent.text_id, sent.poll_ids, final):
            try:  # each step on its own: one refusal skips none
                await client.send(room, event_type, content,
                                  txn(qid, room, part, render.shown(final.prompt)))
            except DeliveryError as exc:
                problems.append(str(exc))
        if problems:
            raise DeliveryError(problems[0])
        log.debug("matrix_finalized", question_id=delivery.question_id, surface=delivery.surface,
                 kind=final.kind)

    async def remind(self, delivery: Delivery, reminder: Reminder) -> MessageRef | None:
        """`reminder.text` as a reply to the prompt text; a reply to it answers the question."""
        client = self._running()
        if delivery.message_ref is not None:
            sent = parse_ref(delivery.message_ref)
            room, text_id = sent.room_id, sent.text_id
        else:
            room, text_id = self._room(delivery.surface), None
        event_id = await client.send(
            room, render.MESSAGE, render.reminder_content(reminder, text_id),
            txn(delivery.question_id, room, f"remind{reminder.number}",
                render.shown(reminder.prompt)))
        remember(self._marks, event_id, Mark(question_id=reminder.prompt.question_id,
                                             shown=render.shown(reminder.prompt)))
        log.info("matrix_reminded", question_id=delivery.question_id, number=reminder.number)
        return MessageRef(event_id)

    async def check(self) -> str:
        """`askbridge doctor`: whoami with the configured token."""
        client = MatrixClient(self.config, self._token)
        try:
            user_id = await client.whoami()
        finally:
            await client.close()
        return f"Matrix account {user_id} on {self.config.homeserver}"

    # LongConnection: only the leader syncs ------------------------------------------------

    async def connect(self) -> None:
        if self._syncing is not None and not self._syncing.done():
            return
        client, sink, queries = self._running(), self._sink, self._queries
        assert sink is not None and queries is not None  # start() ran
        syncer = Syncer(client, self.config, sink, queries, self._state("matrix"), self._marks)
        self._syncing = asyncio.create_task(syncer.run(), name="matrix-sync")
        self._syncing.add_done_callback(_report_end)
        log.info("matrix_sync_started")

    async def disconnect(self) -> None:
        task, self._syncing = self._syncing, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            log.info("matrix_sync_stopped")

    # helpers -----------------------------------------------------------------------------

    def _running(self) -> MatrixClient:
        if self._client is None:
            raise DeliveryError("the Matrix adapter is not running")
        return self._client

    @staticmethod
    def _room(surface: SurfaceId) -> str:
        try:
            return room_of(surface)
        except ValueError:
            raise DeliveryError(
                f"{surface} is not a Matrix room id; write matrix:!<room id> (the room's "
                "settings show it under Advanced)") from None


def _report_end(task: asyncio.Task[None]) -> None:
    """The sync loop only ends by cancellation; anything else is a bug to see in the logs."""
    if not task.cancelled() and task.exception() is not None:
        log.error("matrix_sync_crashed", error=repr(task.exception()))
