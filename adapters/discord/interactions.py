"""Answering Discord interactions: within the 3-second window, ephemerally, modal for Other…."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import discord
import structlog

from adapters.discord import render
from bridge import ButtonPressed, InboundReply, InboundSink, Prompt, TextReceived, tr

log = structlog.get_logger("askbridge.discord")
T = TypeVar("T")
ACK_SECONDS = 2.0
"""Discord wants an interaction acknowledged within 3 s; past this, defer and follow up."""


async def answer_tap(interaction: discord.Interaction[Any], sink: InboundSink,
                     event: ButtonPressed) -> None:
    """A click: the broker's verdict as an ephemeral message, or the modal for `Other…`."""
    async def decide() -> tuple[InboundReply, Prompt | None]:
        reply = await sink.button_pressed(event)
        wants_modal = event.action == "other" and reply.accepted
        return reply, (await sink.prompt_for(event.question_id, event.surface) if wants_modal
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
