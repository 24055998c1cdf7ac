"""A reply, from IMAP or the webhook route, checked and handed to the broker; what it is told back.

A reply counts only with a valid token in a recipient address *and* a From that may answer
(the address the prompt went to, or one in `answerers`): a From alone is forgeable, a token
alone could be forwarded. Nothing is mailed to a sender who may not answer (a forged From would
turn askbridge into a spam relay). Machine-written mail is ignored. A reply to an ended question
gets one short notice per sender, not one per message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from email.message import EmailMessage
from typing import Literal

import structlog

from adapters.email import render
from adapters.email.config import EmailConfig
from adapters.email.ids import address_of
from adapters.email.inbound import Mail, event_from, read_mail, read_words, token_pattern
from adapters.email.tokens import Tokens, question_of
from bridge import (
    AdapterState,
    DeliveryError,
    InboundSink,
    Queries,
    QuestionId,
    SurfaceId,
)

log = structlog.get_logger("askbridge.email")
Outcome = Literal["answered", "kept", "refused", "ended", "ended_again", "automatic", "no_token",
                  "bad_token", "not_answerer", "unreadable"]


class Replies:
    def __init__(self, config: EmailConfig, tokens: Tokens, sink: InboundSink, queries: Queries,
                 state: AdapterState, send: Callable[[EmailMessage], Awaitable[None]],
                 envelope: Callable[[QuestionId, SurfaceId, str], render.Envelope]) -> None:
        self.config = config
        self.tokens = tokens
        self.sink, self.queries, self.state = sink, queries, state
        self.send = send
        self.envelope = envelope
        """(question, surface, to) → the envelope of a message about that delivery."""
        self.pattern = token_pattern(config.reply_to)

    def may_answer(self, sender: str, surface: SurfaceId) -> bool:
        return bool(sender) and (sender in self.config.answerers or sender == address_of(surface))

    async def handle(self, raw: bytes) -> Outcome:
        mail = read_mail(raw, self.pattern, words=False)
        outcome = await self._handle(mail, raw)
        log.info("email_reply", outcome=outcome, tokens=len(mail.tokens),
                 automatic=mail.automatic)  # never the sender or the words: both are personal
        return outcome

    async def _handle(self, mail: Mail, raw: bytes) -> Outcome:
        if mail.automatic:
            return "automatic"
        if not mail.tokens:
            return "no_token"
        found = await self._delivery(mail.tokens)
        if found is None:
            return "bad_token"
        question_id, surface, pending = found
        if not self.may_answer(mail.sender, surface):
            return "not_answerer"
        mail = replace(mail, text=read_words(raw))  # only now: reading the words costs time
        if pending and mail.text is None:
            return "unreadable"
        # An ended question is the core's to say (in the prompt's language), whatever the words.
        reply = await self.sink.text_received(event_from(mail, surface, question_id, True))
        if reply.ended and not reply.accepted:
            return await self._ended(mail, question_id, surface, reply.text)
        if reply.text:
            await self._notice(mail, question_id, surface, reply.text)
        if not reply.accepted:
            return "refused"
        return "answered" if reply.ended else "kept"

    async def _delivery(self, tokens: tuple[str, ...]
                        ) -> tuple[QuestionId, SurfaceId, bool] | None:
        """The first token that is valid for a delivery of its question."""
        for token in tokens:
            question_id = question_of(token)
            view = await self.queries.question_view(question_id) if question_id else None
            if question_id is None or view is None:
                continue
            surface = self.tokens.reply_surface(token, view.get("surfaces", []))
            if surface is not None:
                return question_id, surface, view.get("status") == "pending"
        return None

    async def _ended(self, mail: Mail, question_id: QuestionId, surface: SurfaceId,
                     text: str | None) -> Outcome:
        key = f"ended:{question_id}:{mail.sender}"
        if await self.state.get(key) is not None:
            return "ended_again"
        await self.state.put(key, "1")
        if text:
            await self._notice(mail, question_id, surface, text)
        return "ended"

    async def _notice(self, mail: Mail, question_id: QuestionId, surface: SurfaceId,
                      text: str) -> None:
        env = self.envelope(question_id, surface, mail.sender)
        subject = " ".join(mail.subject.split())[:200]
        try:
            await self.send(render.notice(text, env, subject, mail.message_id, mail.shown))
        except DeliveryError as exc:  # the reply counted all the same; only the notice is lost
            log.warning("email_notice_failed", question_id=question_id, error=str(exc))
