"""Slack native prompts in: selections, Submit and the own-words modal, as core events."""

from __future__ import annotations

from typing import Any, Protocol

import structlog
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack import native
from adapters.slack.calls import NETWORK, api_error
from adapters.slack.config import SlackConfig
from adapters.slack.ids import target_of
from adapters.slack.inbound import BlockActions, event_from, may_answer
from bridge import (
    AnswerSubmitted,
    ButtonPressed,
    InboundReply,
    InboundSink,
    Queries,
    UserRef,
    hand_in,
    tr,
)

log = structlog.get_logger("askbridge.slack").bind(platform="slack")


class Host(Protocol):
    """What taps use of the adapter that owns them (the adapter is one; nothing else is)."""

    config: SlackConfig
    client: AsyncWebClient
    sink: InboundSink | None
    queries: Queries | None

    async def update(self, channel: str, ts: str, args: dict[str, Any]) -> None: ...

    async def tell(self, channel: str, user: str, text: str, thread_ts: str | None) -> None: ...


class Taps:
    """block_actions on native elements (already acknowledged) and the own-words modal."""

    def __init__(self, adapter: Host) -> None:
        self.adapter = adapter

    async def on_action(self, body: dict[str, Any]) -> bool:
        """Handle a native action; False when the body holds none (a one-question button)."""
        actions = body.get("actions")
        if not (isinstance(actions, list) and any(native.parse_action(a) for a in actions)):
            return False
        event, sink = event_from(body, self.adapter.config.answerers), self.adapter.sink
        if event is None or sink is None:
            return True
        payload = BlockActions.model_validate(body)  # event_from took it: it is well formed
        channel, user = target_of(event.surface)[0], payload.user.id
        thread = payload.message.thread_ts if payload.message else None
        ts = payload.message.ts if payload.message else None
        reply = await hand_in(sink, event)
        if isinstance(event, ButtonPressed) and reply.accepted:  # Other…: the own-words modal
            await self._open(event.question_id, event.surface, ts, payload.trigger_id, user)
            return True
        log.info("slack_native_action", question_id=reply.question_id,
                 kind=type(event).__name__, authorized=event.authorized, accepted=reply.accepted)
        await self._after(reply, channel, ts, user, thread)
        return True

    async def _after(self, reply: InboundReply, channel: str, ts: str | None, user: str,
                     thread: str | None) -> None:
        """Show the selections back in the message, or tell the person why not."""
        prompt = reply.prompt  # also after a refusal: the boxes go back to what is stored
        if reply.text and not reply.accepted:
            await self.adapter.tell(channel, user, reply.text, thread)
        if prompt is not None and prompt.layout.kind == "native" and ts:
            await self.adapter.update(channel, ts, native.message(prompt))

    async def _open(self, question_id: Any, surface: Any, ts: str | None,
                    trigger_id: str | None, user: str) -> None:
        """The own-words modal; without a usable trigger, ask for a thread reply instead."""
        queries = self.adapter.queries
        prompt = await queries.prompt_for(question_id) if queries else None
        if prompt is None:
            return
        if trigger_id:
            view = native.own_words_modal(prompt, surface, ts)
            try:
                await self.adapter.client.views_open(trigger_id=trigger_id, view=view)
                return
            except NETWORK as exc:  # an expired trigger: thread replies still work
                log.info("slack_modal_unavailable", error=api_error(exc))
        channel, thread = target_of(surface)
        await self.adapter.tell(channel, user, tr(
            prompt.locale, "Reply in this message's thread with your own answer."),
            thread or ts)

    async def on_own_words(self, body: dict[str, Any]) -> None:
        """The own-words modal: kept per question; the prompt ends once all are answered."""
        parsed = native.own_words(body)
        sink, queries = self.adapter.sink, self.adapter.queries
        if parsed is None or sink is None or queries is None:
            return
        question_id, surface, ts, user, texts = parsed
        prompt = await queries.prompt_for(question_id)
        channel, thread = target_of(surface)
        # ended meanwhile: no answers, and the core says so in the prompt's language
        answers = {prompt.questions[n].id: [t] for n, t in texts.items()
                   if n < len(prompt.questions)} if prompt is not None else {}
        reply = await sink.answers_submitted(AnswerSubmitted(
            surface, UserRef(user), question_id, answers,
            authorized=may_answer(user, channel, self.adapter.config.answerers), partial=True))
        log.info("slack_own_words", question_id=question_id, accepted=reply.accepted)
        await self._after(reply, channel, ts, user, thread)
        if reply.accepted and reply.text and not reply.ended:  # "Kept. Now answer …"
            await self.adapter.tell(channel, user, reply.text, thread)
