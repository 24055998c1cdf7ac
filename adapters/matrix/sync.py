"""The /sync loop (leader only) and what each event becomes: text, a vote, an accepted invite.

Each room's events are handled in the order they came, rooms side by side, and the next /sync
does not wait for them (`order`). The position (`next_batch`) is kept in the store once every
event before it is handled, so a restart resumes where it left off: answers given while
askbridge was down are taken, old ones are never replayed.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import structlog

from adapters.matrix import approvals, inbound, render
from adapters.matrix.client import MatrixClient, SyncFailed
from adapters.matrix.config import MatrixConfig
from adapters.matrix.ids import surface_for
from adapters.matrix.inbound import Mark, Said, Sealed, Vote
from adapters.matrix.order import InRoomOrder
from bridge import (
    DEFAULT_LOCALE,
    AdapterState,
    AnswerSubmitted,
    InboundReply,
    InboundSink,
    Queries,
    QuestionId,
    TextReceived,
    UserRef,
    backoff,
)

log = structlog.get_logger("askbridge.matrix")
POSITION = "next_batch"
SYNC_FILTER: dict[str, Any] = {
    "presence": {"types": []},
    "account_data": {"types": []},
    "room": {"timeline": {"types": ["m.room.message", inbound.ENCRYPTED, *render.POLL_RESPONSES],
                          "limit": 100},
             "ephemeral": {"types": []}, "account_data": {"types": []},
             "state": {"lazy_load_members": True}},
}
MAX_MARKS = 10_000


class Syncer:
    """Turns the bot's /sync stream into calls on the broker's `InboundSink`."""

    def __init__(self, client: MatrixClient, config: MatrixConfig, sink: InboundSink,
                 queries: Queries, state: AdapterState, marks: dict[str, Mark]) -> None:
        self.client = client
        self.config = config
        self.sink, self.queries = sink, queries
        self.state = state
        self.marks = marks
        """Our own events → their question (and poll index); filled on send, else looked up."""
        self._since: str | None = None
        self._warned: set[str] = set()
        self._not_before = 0
        """With no stored position, events older than our first sync are history, not answers."""
        self._order = InRoomOrder(partial(state.put, POSITION))
        self.locale = config.locale or DEFAULT_LOCALE
        """For notices with no prompt at hand (this section's language, else English)."""
        self.edits = approvals.EditLinks(client, queries, state, self.notice)

    async def run(self) -> None:
        """Sync until cancelled; a failed /sync backs off (to a minute) and resumes. Events
        still being handled are cancelled with it, and the stored position stays before them."""
        self._since = await self.state.get(POSITION)
        if self._since is None:
            self._not_before = int(time.time() * 1000) - 2000
        try:
            await self._sync()
        finally:
            await self._order.stop()

    async def _sync(self) -> None:
        while True:
            try:
                while True:
                    await self.once()
            except SyncFailed as exc:
                log.warning("matrix_sync_failed", error=str(exc))
            async for delay in backoff(self.config.retry_base_seconds, 60.0):
                try:
                    await self.once()
                    break
                except SyncFailed as exc:
                    log.warning("matrix_sync_failed", error=str(exc), retry_in=round(delay, 1))

    async def once(self) -> None:
        """One /sync: a fresh start only takes the position, later ones take their events."""
        first = self._since is None
        resp = await self.client.sync(self._since, 0 if first else self.config.sync_timeout * 1000,
                                      SYNC_FILTER)
        batch = self._order.batch(str(resp.next_batch))
        if not first:
            for room_id, invite in resp.rooms.invite.items():
                state = [_stripped(e) for e in invite.invite_state]
                await self._order.add(batch, room_id, partial(self._invited, room_id, state))
            for room_id, info in resp.rooms.join.items():
                for event in info.timeline.events:
                    raw = getattr(event, "source", None)
                    if isinstance(raw, dict) and raw.get("origin_server_ts", 0) >= self._not_before:
                        await self._order.add(batch, room_id, partial(self._dispatch, room_id, raw))
            self._not_before = 0  # only the batch right after a fresh start can hold history
        self._since = batch.position
        await self._order.taken(batch)

    async def _dispatch(self, room_id: str, raw: dict[str, Any]) -> None:
        match inbound.event_from(room_id, raw, self.client.user_id):
            case Said() as said:
                await self._said(said)
            case Vote() as vote:
                await self._voted(vote)
            case Sealed() as sealed:
                await self._sealed(sealed)

    async def _sealed(self, sealed: Sealed) -> None:
        """An answerer writing in an encrypted room would wait forever: say so, once per room."""
        if sealed.sender not in self.config.answerers or sealed.room_id in self._warned:
            return
        self._warned.add(sealed.room_id)
        log.warning("matrix_room_encrypted", room_id=sealed.room_id)
        await self.notice(sealed.room_id, render.sealed(self.locale), sealed.event_id, None)

    async def _invited(self, room_id: str, invite_state: list[dict[str, Any]]) -> None:
        inviter = inbound.invited_by(invite_state, self.client.user_id)
        if inviter not in self.config.answerers:
            log.info("matrix_invite_ignored", room_id=room_id)
            return
        joined = await self.client.join(room_id)
        log.info("matrix_invite_accepted", room_id=room_id, joined=joined)

    async def mark(self, room_id: str, event_id: str) -> Mark | None:
        found = self.marks.get(event_id)
        if found is None:
            raw = await self.client.event(room_id, event_id)
            found = inbound.mark_of(raw, self.client.user_id) if raw else None
            if found is not None:
                remember(self.marks, event_id, found)
        return found

    async def _said(self, said: Said) -> None:
        mark = await self.mark(said.room_id, said.reply_to) if said.reply_to else None
        reply_to = mark.question_id if mark else None
        authorized = said.sender in self.config.answerers
        if not authorized and reply_to is None:
            return  # others chatting in a shared room are none of our business
        text = said.text.strip()
        if authorized and approvals.is_edit(text) and await self.edits.answer(
                said.room_id, said.sender, said.event_id, reply_to, self.locale):
            return
        if mark is not None and mark.asks == approvals.REASON:  # a reply to "Say why"
            text = approvals.as_reason(text)
        shown = mark.shown if mark else None  # a reply to a prompt an edit replaced is stale
        event = TextReceived(surface=surface_for(said.room_id), user=UserRef(said.sender),
                             text=text, authorized=authorized, reply_to=reply_to,
                             shown_hash=shown)
        reply = await self.sink.text_received(event)
        log.info("matrix_text", surface=event.surface, handled=reply.handled,
                 accepted=reply.accepted, question_id=reply.question_id)
        if reply.handled and reply.text:
            await self.notice(said.room_id, reply.text, said.event_id,
                              None if reply.ended else reply.question_id,
                              _asks(reply.text, reply.locale), shown)

    async def _voted(self, vote: Vote) -> None:
        mark = await self.mark(vote.room_id, vote.poll_id)
        if mark is None or mark.index is None or not vote.answers:
            return  # not one of our polls, or a vote taken back
        surface, user = surface_for(vote.room_id), UserRef(vote.sender)
        authorized = vote.sender in self.config.answerers
        prompt = await self.queries.prompt_for(mark.question_id, surface)
        reply: InboundReply
        if prompt is None or mark.index >= len(prompt.questions):
            # ended: no answers, and the core says so in the prompt's language
            reply = await self.sink.answers_submitted(AnswerSubmitted(
                surface, user, mark.question_id, {}, authorized, partial=True))
            if reply.text:
                await self.notice(vote.room_id, reply.text, vote.event_id, None)
            return
        question = prompt.questions[mark.index]
        picked = inbound.chosen(vote.answers, len(question.options))
        if picked is None:
            log.info("matrix_vote_ignored", question_id=mark.question_id, reason="unknown answer")
            return
        labels = [question.options[i][0] for i in picked]
        if len(prompt.questions) == 1:
            reply = await self.sink.answers_submitted(AnswerSubmitted(
                surface, user, mark.question_id, {question.id: labels}, authorized,
                shown_hash=mark.shown))
        else:  # one poll of several: the core keeps it as a partial answer, shared with text
            line = f"{mark.index + 1}: {', '.join(labels)}"
            reply = await self.sink.text_received(TextReceived(
                surface, user, line, authorized, reply_to=mark.question_id))
        log.info("matrix_vote", question_id=mark.question_id, surface=surface,
                 authorized=authorized, accepted=reply.accepted, ended=reply.ended)
        if reply.text and not reply.accepted:  # an accepted vote shows in the poll itself
            await self.notice(vote.room_id, reply.text, vote.event_id, reply.question_id,
                              _asks(reply.text, reply.locale), mark.shown)

    async def notice(self, room_id: str, text: str, reply_to: str | None,
                     question_id: QuestionId | None, asks: str | None = None,
                     shown: str | None = None) -> None:
        """`shown`: the payload the person was deciding on, so a reply to a `Say why` notice
        about arguments an edit has since replaced is refused as stale too."""
        content = render.notice_content(text, reply_to, question_id, asks, shown)
        event_id = await self.client.send(room_id, "m.room.message", content)
        if question_id:
            remember(self.marks, event_id, Mark(question_id=question_id, asks=asks, shown=shown))


def _asks(text: str, locale: str) -> str | None:
    """`reason` on a notice asking for a rejection's reason: a plain reply to it is one."""
    return approvals.REASON if approvals.asks_reason(text, locale) else None


def _stripped(event: Any) -> dict[str, Any]:
    """An invite's state event as raw JSON; nio moves `content` out of these events' source."""
    raw = dict(getattr(event, "source", None) or {})
    content = getattr(event, "content", None)
    if "content" not in raw and isinstance(content, dict):
        raw["content"] = content
    return raw


def remember(marks: dict[str, Mark], event_id: str, mark: Mark) -> None:
    if len(marks) >= MAX_MARKS:  # a cache, not a record: the events themselves carry the mark
        marks.clear()
    marks[event_id] = mark
