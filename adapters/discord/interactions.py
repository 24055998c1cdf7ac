"""Answering Discord interactions: within the 3-second window, ephemerally, modal for Other…."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

import discord
import structlog

from adapters.discord import approval, inbound, native, render
from adapters.discord.ids import surface_for
from bridge import (
    DEFAULT_LOCALE,
    AnswerSubmitted,
    ButtonPressed,
    InboundReply,
    InboundSink,
    Prompt,
    Queries,
    SelectionChanged,
    SubmitPressed,
    TextReceived,
    UserRef,
    hand_in,
    tr,
)

log = structlog.get_logger("askbridge.discord")
T = TypeVar("T")
Edit = Callable[[int, int, dict[str, Any]], Awaitable[Any]]
"""PATCH a message (channel id, message id, body) through the adapter's REST client."""
ACK_SECONDS = 2.0
"""Discord wants an interaction acknowledged within 3 s; past this, defer and follow up."""


async def answer_tap(interaction: discord.Interaction[Any], sink: InboundSink, queries: Queries,
                     event: ButtonPressed) -> None:
    """A click: the broker's verdict as an ephemeral message, or for `Other…` a modal (one text
    input, or one per question on a native prompt)."""
    async def decide() -> tuple[InboundReply, Prompt | None]:
        reply = await sink.button_pressed(event)
        wants_modal = event.action == "other" and reply.accepted
        return reply, (await queries.prompt_for(event.question_id, event.surface) if wants_modal
                       else None)

    (reply, prompt), late = await in_time(interaction, decide())
    log.info("discord_tap", question_id=event.question_id, action=event.action,
             authorized=event.authorized, accepted=reply.accepted)
    if event.action != "other" or not reply.accepted:
        await tell(interaction, reply.text or fallback(reply), late)
        return
    if late:  # a modal cannot follow a deferral; a reply to the prompt still works
        await tell(interaction, tr(reply.locale, "Reply to the prompt with your own answer."), late)
        return
    modal = (native.own_words_modal(event.question_id, prompt)
             if prompt is not None and prompt.layout.kind == "native"
             else render.other_modal(event.question_id, prompt, reply.locale))
    await interaction.response.send_modal(modal)
    modal.stop()  # the submit is handled by its custom id, even after a restart


async def in_time(interaction: discord.Interaction[Any], work: Awaitable[T]) -> tuple[T, bool]:
    """Run `work`; if it outlasts Discord's window, defer ephemerally first. True = deferred."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=ACK_SECONDS)
    if not done:
        await interaction.response.defer(ephemeral=True, thinking=True)
    return await task, not done


async def tell(interaction: discord.Interaction[Any], text: str, deferred: bool) -> None:
    if deferred:
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)


def fallback(reply: InboundReply) -> str:
    """What to say when the core said nothing: every refusal of a question comes with its own
    words, so this is a kept answer, or a press on something that is not a question's."""
    if reply.accepted:
        return tr(reply.locale, "Thanks, your answer was recorded.")
    return tr(reply.locale, "This button is no longer valid.")


_KINDS: dict[discord.InteractionType, Literal["component", "modal"]] = {
    discord.InteractionType.component: "component",
    discord.InteractionType.modal_submit: "modal",
}


async def dispatch(interaction: discord.Interaction[Any], sink: InboundSink, queries: Queries,
                   answerers: tuple[str, ...], edit: Edit) -> None:
    """One interaction on our components or modals, answered within Discord's window."""
    channel_id, kind = interaction.channel_id, _KINDS.get(interaction.type)
    if channel_id is None or kind is None:
        return
    authorized = inbound.may_answer(interaction.user.id, interaction.guild_id is None, answerers)
    data: Any = interaction.data or {}
    tap = approval.parse(str(data.get("custom_id", "")))
    if tap is not None:
        await answer_approval(interaction, sink, queries, tap, authorized)
        return
    own = inbound.own_words(interaction.data) if kind == "modal" else None
    if own is not None:
        await answer_own_words(interaction, sink, queries, own, authorized, edit)
        return
    event = inbound.event_from(inbound.Interaction(kind, channel_id, interaction.user.id,
                                                   interaction.data, authorized))
    match event:
        case SelectionChanged():
            await answer_select(interaction, sink, event, edit)
        case ButtonPressed():
            await answer_tap(interaction, sink, queries, event)
        case SubmitPressed() | TextReceived():  # Submit, or a modal's own words
            reply, late = await in_time(interaction, hand_in(sink, event))
            await tell(interaction, reply.text or fallback(reply), late)


async def answer_select(interaction: discord.Interaction[Any], sink: InboundSink,
                        event: SelectionChanged, edit: Edit) -> None:
    """A select menu changed: acknowledged at once, then the prompt edited to show it."""
    await interaction.response.defer()  # a component's deferral edits nothing until we do
    reply = await sink.selection_changed(event)
    log.info("discord_select", question_id=event.question_id, authorized=event.authorized,
             accepted=reply.accepted)
    if reply.text:
        await interaction.followup.send(reply.text, ephemeral=True)
    message = interaction.message  # also after a refusal: the menus go back to what is stored
    if reply.prompt is not None and reply.prompt.layout.kind == "native" and message is not None:
        await edit(message.channel.id, message.id, render.prompt(reply.prompt)[-1])


async def answer_own_words(interaction: discord.Interaction[Any], sink: InboundSink,
                           queries: Queries, own: tuple[inbound.Tap, dict[int, str]], authorized: bool,
                           edit: Edit) -> None:
    """The own-words modal: kept per question; the prompt ends once every question is answered."""
    tap, texts = own

    surface = surface_for(interaction.channel_id or 0)

    async def decide() -> InboundReply:
        prompt = await queries.prompt_for(tap.question_id, surface)
        # ended meanwhile: no answers, and the inbox says so in the surface's language
        answers = {prompt.questions[n].id: [t] for n, t in texts.items()
                   if n < len(prompt.questions)} if prompt is not None else {}
        return await sink.answers_submitted(AnswerSubmitted(
            surface, UserRef(str(interaction.user.id)),
            tap.question_id, answers, authorized=authorized, partial=True))

    reply, late = await in_time(interaction, decide())
    await tell(interaction, reply.text or fallback(reply), late)
    message = interaction.message
    if reply.prompt is not None and reply.prompt.layout.kind == "native" and message is not None:
        await edit(message.channel.id, message.id, render.prompt(reply.prompt)[-1])


async def answer_approval(interaction: discord.Interaction[Any], sink: InboundSink,
                          queries: Queries, tap: approval.Tap, authorized: bool) -> None:
    """Approve / Allow 1 h vote at once; Reject and Edit open their modal; a modal's submit
    (the reason, the edited arguments) votes. The verdict comes back ephemerally."""
    channel_id = interaction.channel_id or 0
    prompt = await queries.prompt_for(tap.question_id, surface_for(channel_id))
    if tap.kind in ("reject", "edit"):
        if prompt is None:
            await tell(interaction, tr(DEFAULT_LOCALE, "This approval has already been decided."),
                       False)
        else:
            await interaction.response.send_modal(approval.modal(tap, prompt, prompt.locale))
        return
    event = approval.decision(tap, channel_id, interaction.user.id, authorized,
                              prompt.locale if prompt is not None else None,
                              approval.typed(interaction.data))
    if isinstance(event, str):
        await tell(interaction, event, False)
        return
    reply, late = await in_time(interaction, sink.approval_decided(event))
    log.info("discord_approval", question_id=tap.question_id, kind=tap.kind,
             accepted=reply.accepted)
    await tell(interaction, reply.text or fallback(reply), late)
