"""Presses on an approval's buttons and replies to its requests: Approve / Allow 1 h vote at
once; Reject asks for the reason by force-reply; Edit sends the presser a signed link to the web
card — in a group, to them privately, never where others read it — or, when the bridge serves no
links, asks for the arguments as JSON by force-reply. Requests are kept in the store, so a reply
still counts after a restart."""

from __future__ import annotations

import structlog
from telegram import CallbackQuery
from telegram.error import BadRequest, Forbidden

from adapters.telegram import approval, inbound
from adapters.telegram.host import Host
from adapters.telegram.ids import Callback
from bridge import DeliveryError, InboundReply, Priority, Prompt, UserRef, caption, tr

log = structlog.get_logger("askbridge.telegram")


class ApprovalTaps:
    """The approval half of `Taps`."""

    def __init__(self, adapter: Host) -> None:
        self.adapter = adapter

    async def on_tap(self, query: CallbackQuery, tap: inbound.Tap, pressed: Callback) -> None:
        """Every press is answered once: a toast, an alert, or nothing but what follows."""
        sink, queries, where = self.adapter.sink, self.adapter.queries, tap.where
        assert sink is not None and queries is not None
        if where is None:  # a message the bot cannot see any more
            await query.answer(tr(self.adapter.locale, "This button is no longer valid."),
                               show_alert=True)
            return
        prompt = await queries.prompt_for(pressed.question_id, where.surface)
        locale = prompt.locale if prompt is not None else self.adapter.locale
        event = approval.tap_decision(where, tap.user_id, self.adapter.config.answerers,
                                      pressed, locale)
        if event is None and prompt is None:  # Reject or Edit on an approval that ended
            await query.answer(tr(locale, "This approval has already been decided."),
                               show_alert=True)
            return
        if event is not None:
            reply = await sink.approval_decided(event)
            log.info("telegram_approval_tap", question_id=pressed.question_id, kind=pressed.kind,
                     accepted=reply.accepted)
            await query.answer(caption(reply.text or "", 200) or None,
                               show_alert=not reply.accepted and bool(reply.text))
            return
        assert prompt is not None
        if pressed.kind == "edit":
            url = await queries.card_link(pressed.question_id, where.surface,
                                          UserRef(str(tap.user_id)))
            if url is not None:
                await self.send_link(query, where, tap.user_id, url, locale)
                return
        await query.answer()
        await self.ask(where, prompt, approval.Ask(
            pressed.question_id, "reject" if pressed.kind == "reject" else "edit",
            pressed.fingerprint), locale)

    async def ask(self, where: inbound.Where, prompt: Prompt, ask: approval.Ask,
                  locale: str) -> None:
        text, markup = approval.request(ask.kind, prompt, locale)
        message_id = await self.adapter.call.send(
            self.adapter.bot(), where.chat_id, where.thread_id, [(text, markup)],
            Priority.PROMPT)
        await self.adapter.bindings.bind_ask((where.chat_id, message_id), ask.question_id,
                                             ask.what)

    async def send_link(self, query: CallbackQuery, where: inbound.Where, user_id: int,
                        url: str, locale: str) -> None:
        """The link is a bearer credential for one person: in a private chat it goes there; from
        a group, to the person's own chat with the bot, and if they never started one, the
        press is answered with what to do (the link is never posted in the group)."""
        message = approval.link_message(locale, url)
        if where.chat_type == inbound.PRIVATE:
            await query.answer()
            await self.adapter.call.send(self.adapter.bot(), where.chat_id, where.thread_id,
                                         [message], Priority.PROMPT)
            return
        try:
            await self.adapter.call.send(self.adapter.bot(), user_id, None, [message],
                                         Priority.PROMPT)
        except (DeliveryError, BadRequest) as exc:
            refused = isinstance(exc, BadRequest) or isinstance(exc.__cause__, Forbidden)
            log.info("telegram_edit_link_failed", surface=where.surface, refused=refused)
            await query.answer(tr(locale, "I cannot write to you privately yet: open a private "
                                  "chat with me and press Start, then press Edit again.")
                               if refused else tr(locale, "Telegram did not take the edit link; "
                                                  "press Edit again in a moment."),
                               show_alert=True)
            return
        await query.answer(tr(locale, "I sent you the edit link in our private chat."))

    async def ask_of(self, said: inbound.Said) -> approval.Ask | None:
        """The Reject or Edit request a message replies to, if it is one of ours."""
        if said.reply_to_message_id is None or not said.reply_to_bot:
            return None
        found = await self.adapter.bindings.ask((said.where.chat_id, said.reply_to_message_id))
        return approval.Ask.of(*found) if found is not None else None

    async def reply(self, said: inbound.Said, ask: approval.Ask) -> InboundReply:
        """A reply to our Reject or Edit request, handed in as the person's decision."""
        sink, queries = self.adapter.sink, self.adapter.queries
        assert sink is not None and queries is not None
        prompt = await queries.prompt_for(ask.question_id, said.where.surface)
        locale = prompt.locale if prompt is not None else self.adapter.locale
        event = approval.answer_event(ask, said, self.adapter.config.answerers, locale)
        if isinstance(event, str):  # not a JSON object: say so; the request stays answerable
            return InboundReply(handled=True, text=event)
        reply = await sink.approval_decided(event)
        log.info("telegram_approval_reply", question_id=ask.question_id, kind=ask.kind,
                 accepted=reply.accepted)
        return reply

