"""Answering Discord interactions: within the 3-second window, ephemerally, modal for Other…."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

import discord
import structlog

from adapters.discord import inbound, native, render
from bridge import (
    AnswerSubmitted,
    ButtonAction,
    ButtonPressed,
    InboundReply,
    InboundSink,
    Prompt,
    Queries,
    SelectionChanged,
    SubmitPressed,
    TextReceived,
    UserRef,
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
    """A click: the broker's verdict as an ephemeral message, or the modal for `Other…`."""
    async def decide() -> tuple[InboundReply, Prompt | None]:
        reply = await sink.button_pressed(event)
        wants_modal = event.action == "other" and reply.accepted
        return reply, (await queries.prompt_for(event.question_id, event.surface) if wants_modal
                       else None)

    (reply, prompt), late = await in_time(interaction, decide())
    log.info("discord_tap", question_id=event.question_id, action=event.action,
             authorized=event.authorized, accepted=reply.accepted)
    if event.action == "other" and reply.accepted:
        if late:  # a modal cannot follow a deferral; a reply to the prompt still works
            await tell(interaction, tr(reply.locale, "Reply to the prompt with your own answer."),
                       late)
            return
        modal = render.other_modal(event.question_id, prompt, reply.locale)
        await interaction.response.send_modal(modal)
        modal.stop()  # the submit is handled by its custom id, even after a restart
        return
    await tell(interaction, reply.text or fallback(reply), late)


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
    if reply.accepted:
        return tr(reply.locale, "Thanks, your answer was recorded.")
    return tr(reply.locale, "This question has already ended.")


async def answer_text(interaction: discord.Interaction[Any], sink: InboundSink,
                      event: TextReceived) -> None:
    """A modal's free text, bound to its question by id."""
    reply, late = await in_time(interaction, sink.text_received(event))
    await tell(interaction, reply.text or fallback(reply), late)


async def dispatch(interaction: discord.Interaction[Any], sink: InboundSink, queries: Queries,
                   answerers: tuple[str, ...], edit: Edit) -> None:
    """One interaction on our components or modals, answered within Discord's window."""
    channel_id = interaction.channel_id
    if channel_id is None:
        return
    user = interaction.user.id
    authorized = inbound.may_answer(user, interaction.guild_id is None, answerers)
    if interaction.type is discord.InteractionType.modal_submit:
        own = inbound.own_words(interaction.data)
        if own is not None:
            await answer_own_words(interaction, sink, queries, own, authorized, edit)
            return
        submitted = inbound.modal_submit(interaction.data)
        if submitted is not None:
            text = inbound.modal_event(channel_id, user, *submitted, authorized=authorized)
            await answer_text(interaction, sink, text)
        return
    if interaction.type is not discord.InteractionType.component:
        return
    tap = inbound.component_tap(interaction.data)
    if tap is None or tap.action in ("modal", "own_modal"):
        return
    surface, who = inbound.surface_for(channel_id), UserRef(str(user))
    if tap.action == "select":
        chosen = inbound.select_values(interaction.data)
        if chosen is not None:
            await answer_select(interaction, sink, SelectionChanged(
                surface, who, tap.question_id, tap.step, chosen, authorized), edit)
    elif tap.action == "done":
        reply, late = await in_time(interaction, sink.submit_pressed(
            SubmitPressed(surface, who, tap.question_id, authorized)))
        await tell(interaction, reply.text or fallback(reply), late)
    elif tap.action == "own_words":
        await open_own_words(interaction, sink, queries, ButtonPressed(
            surface, who, tap.question_id, "other", authorized))
    else:
        action = cast(ButtonAction, tap.action)  # the modal kinds returned above
        await answer_tap(interaction, sink, queries, inbound.tap_event(
            channel_id, user, tap.question_id, action, authorized))


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
    if reply.prompt is not None and reply.prompt.native is not None and message is not None:
        await edit(message.channel.id, message.id, native.message(reply.prompt))


async def open_own_words(interaction: discord.Interaction[Any], sink: InboundSink,
                         queries: Queries, event: ButtonPressed) -> None:
    """`Other…` on a native prompt: a modal with one text input per question."""
    async def decide() -> tuple[InboundReply, Prompt | None]:
        reply = await sink.button_pressed(event)
        return reply, (await queries.prompt_for(event.question_id, event.surface)
                       if reply.accepted else None)

    (reply, prompt), late = await in_time(interaction, decide())
    if prompt is None or not reply.accepted:
        await tell(interaction, reply.text or fallback(reply), late)
        return
    if late:
        await tell(interaction, tr(reply.locale, "Reply to the prompt with your own answer."),
                   late)
        return
    modal = native.own_words_modal(event.question_id, prompt)
    await interaction.response.send_modal(modal)
    modal.stop()  # the submit is handled by its custom id, even after a restart


async def answer_own_words(interaction: discord.Interaction[Any], sink: InboundSink,
                           queries: Queries, own: tuple[inbound.Tap, dict[int, str]], authorized: bool,
                           edit: Edit) -> None:
    """The own-words modal: kept per question; the prompt ends once every question is answered."""
    tap, texts = own

    surface = inbound.surface_for(interaction.channel_id or 0)

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
    if reply.prompt is not None and reply.prompt.native is not None and message is not None:
        await edit(message.channel.id, message.id, native.message(reply.prompt))
