"""Telegram callback queries: one-tap answers, native toggles and the walk, and `Other…` asks."""

from __future__ import annotations

from dataclasses import dataclass

import structlog
from telegram import CallbackQuery, ForceReply, Update
from telegram.error import BadRequest
from telegram.ext import ContextTypes

from adapters.telegram import approval, inbound, native, render
from adapters.telegram.approval_taps import ApprovalTaps
from adapters.telegram.calls import api
from adapters.telegram.host import Host
from adapters.telegram.ids import callback_of
from bridge import (
    AnswerSubmitted,
    ButtonPressed,
    InboundReply,
    Priority,
    Prompt,
    Queries,
    QuestionId,
    UserRef,
    caption,
    hand_in,
    tr,
)

log = structlog.get_logger("askbridge.telegram")
Key = tuple[int | str, int]


@dataclass(frozen=True, slots=True)
class OwnWords:
    """A force-reply ask for one question of a native prompt, and the prompt to refresh."""

    question_id: QuestionId
    key: str
    """The question's id within the prompt."""
    prompt: Key
    step: int


class Taps:
    """Turns presses on our inline keyboards into core events and edits keyboards in place."""

    def __init__(self, adapter: Host) -> None:
        self.adapter = adapter
        self.own_words: dict[Key, OwnWords] = {}
        """Our force-reply asks (chat, message id) for one question of a native prompt."""
        self.approvals = ApprovalTaps(adapter)
        """Presses on approvals' buttons, and replies to their Reject and Edit requests."""

    def forget(self, question_id: QuestionId) -> None:
        self.own_words = {k: v for k, v in self.own_words.items() if v.question_id != question_id}

    async def prune(self, queries: Queries) -> None:
        """Drop the asks of questions that ended (perhaps finalized by another replica)."""
        ended = {q: await queries.prompt_for(q) is None
                 for q in {v.question_id for v in self.own_words.values()}}
        self.own_words = {k: v for k, v in self.own_words.items() if not ended[v.question_id]}

    async def on_tap(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A press on one of our buttons: python-telegram-bot matched its data against
        `CALLBACK_PATTERN` and hands the match on in `context.matches`; it is read only here."""
        query, sink = update.callback_query, self.adapter.sink
        match = context.matches[0] if context.matches else None
        tap = inbound.tap_from(update, callback_of(match)) if match is not None else None
        if query is None or tap is None or tap.callback is None or sink is None:
            return
        where, pressed = tap.where, tap.callback
        if pressed.kind in approval.APPROVAL_KINDS:
            await self.approvals.on_tap(query, tap, pressed)
            return
        event = inbound.tap_event(tap, pressed, self.adapter.config.answerers)
        if where is None or event is None:
            await self.on_stale(update, context)
            return
        reply = await hand_in(sink, event)
        log.info("telegram_tap", question_id=reply.question_id, surface=where.surface,
                 kind=pressed.kind, accepted=reply.accepted)
        await _answer(query, reply)
        if isinstance(event, ButtonPressed) and event.action == "other" and reply.accepted:
            step = (tap.message_id, pressed.step) if pressed.native else None
            await self.ask_free_text(update, where, event.question_id, step)
        elif pressed.native and reply.accepted and reply.prompt \
                and reply.prompt.layout.kind == "native":
            await self.show(reply.prompt, tap, native.after_tap(reply.prompt, pressed))

    async def on_stale(self, update: Update, _: ContextTypes.DEFAULT_TYPE) -> None:
        """Any other press (a button whose data is not ours, or from a message we cannot see):
        answered, so the person's app stops waiting, with why nothing happened."""
        if update.callback_query is not None:
            await update.callback_query.answer(
                tr(self.adapter.locale, "This button is no longer valid."), show_alert=True)

    async def show(self, prompt: Prompt, tap: inbound.Tap, step: int) -> None:
        if tap.where is not None and tap.message_id is not None:
            await self._edit(prompt, (tap.where.chat_id, tap.message_id), step)

    async def _edit(self, prompt: Prompt, message: Key, step: int) -> None:
        """Edit the prompt's text and keyboard in place to `step` with the current selections."""
        bot, (chat, message_id) = self.adapter.bot(), message
        try:
            await self.adapter.call.edit(chat, message_id, "editMessageText", lambda: api(
                bot, "editMessageText", chat_id=chat, message_id=message_id,
                text=native.text(prompt, step), reply_markup=native.keyboard(prompt, step)))
        except BadRequest as exc:
            if "not modified" not in exc.message.lower():
                log.warning("telegram_edit_refused", question_id=prompt.question_id,
                            error=exc.message)

    async def ask_free_text(self, update: Update, where: inbound.Where,
                            question_id: QuestionId,
                            native_step: tuple[int | None, int] | None = None) -> None:
        """`Other…`: a force-reply; for one question of a native prompt, bound to that question."""
        queries = self.adapter.queries
        assert queries is not None
        prompt = await queries.prompt_for(question_id, where.surface)
        person = update.effective_user if where.chat_type != inbound.PRIVATE else None
        step = native_step[1] if native_step else 0
        text, entities = render.free_text_request(prompt, person, step)
        message_id = await self.adapter.call.send(
            self.adapter.bot(), where.chat_id, where.thread_id,
            [(text, ForceReply(selective=True, input_field_placeholder=tr(
                prompt.locale if prompt else self.adapter.locale, "Your answer")))],
            Priority.PROMPT, entities=entities)
        key = (where.chat_id, message_id)
        if native_step and native_step[0] and prompt and step < len(prompt.questions):
            self.own_words[key] = OwnWords(question_id, prompt.questions[step].id,
                                           (where.chat_id, native_step[0]), step)
        else:
            await self.adapter.bindings.bind(key, question_id)

    def own_words_event(self, said: inbound.Said) -> tuple[AnswerSubmitted, OwnWords] | None:
        """A reply to a per-question force-reply: that question's own words, kept as partial."""
        if said.reply_to_message_id is None:
            return None
        bound = self.own_words.get((said.where.chat_id, said.reply_to_message_id))
        if bound is None:
            return None
        return AnswerSubmitted(
            surface=said.where.surface, user=UserRef(str(said.user_id)),
            question_id=bound.question_id, answers={bound.key: [said.text.strip()]},
            partial=True, authorized=inbound.may_answer(said.where, said.user_id,
                                                        self.adapter.config.answerers)), bound

    async def refresh(self, bound: OwnWords, reply: InboundReply) -> None:
        """Own words kept for one question: the prompt shows that question as answered."""
        prompt = reply.prompt
        if not reply.accepted or reply.ended or prompt is None or prompt.layout.kind != "native":
            return
        await self._edit(prompt, bound.prompt, bound.step)


async def _answer(query: CallbackQuery, reply: InboundReply) -> None:
    """Every callback query is answered: a toast when accepted, an alert when refused."""
    await query.answer(caption(reply.text or "", 200) or None,  # Telegram caps a toast
                       show_alert=not reply.accepted and bool(reply.text))
