"""An edit under quorum proposes new arguments: every prompt of the approval is shown again with
them (and their fingerprint), and the prompt showing the old ones is edited to say so, so that
no approver decides on arguments that are no longer the ones waiting."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import structlog

from bridge.core.open_questions import OpenQuestions
from bridge.core.outbound import Outbound
from bridge.core.quorum import shown_name
from bridge.model.ids import MessageRef, QuestionId
from bridge.model.prompt import Delivery, Finalization
from bridge.runtime.pace import Priority
from bridge.store.approval_records import ApprovalRecord
from bridge.store.protocol import Store
from bridge.store.records import DeliveryRecord, QuestionRecord
from bridge.text.i18n import N_, tr

log = structlog.get_logger("askbridge.approvals")

EDITED_BY = N_("Edited by {name}: decide on the new arguments in the next message.")


async def reshow(store: Store, outbound: Outbound, open_questions: OpenQuestions,
                 before: ApprovalRecord, by: str) -> None:
    """Show the approval's prompts again with its arguments as they are now."""
    record = await store.get_question(QuestionId(before.id))
    if record is None or not record.pending or record.approval is None:
        return
    open_questions.refresh(record)
    was = before.arguments if before.arguments is not None else before.request.arguments
    old = replace(record, approval=record.approval.model_copy(update={"arguments": was}))
    live = [d for d in await store.deliveries(record.id)
            if d.state == "delivered" and not d.finalized]
    # First, before the notices and new prompts queue behind the platforms' limits: from now
    # on a reply to an old prompt or reminder is refused as stale, not counted for new arguments.
    # A prompt marked already is being shown again by `shown_late` (it was on its way).
    live = [d for d in live if await store.note_replaced(record.id, d.surface, d.message_ref,
                                                         before.payload_hash)]
    shown = await asyncio.gather(*(_again(outbound, old, record, d, by) for d in live))
    log.info("approval_reshown", approval_id=record.id, surfaces=sum(shown))


async def shown_late(store: Store, outbound: Outbound, rendered: QuestionRecord,
                     delivery: DeliveryRecord) -> None:
    """A prompt rendered before an edit and recorded after it: the edit's `reshow` did not see
    it. Mark it with the arguments it showed, and show it again like the others."""
    assert rendered.approval is not None and delivery.message_ref is not None
    record = await store.get_question(rendered.id)
    if (record is None or not record.pending or record.approval is None
            or record.approval.payload_hash == rendered.approval.payload_hash):
        return
    if not await store.note_replaced(record.id, delivery.surface, MessageRef(delivery.message_ref),
                                     rendered.approval.payload_hash):
        return  # the edit's `reshow` found it delivered and shows it again
    edits = [v for v in await store.votes(record.id) if v.arguments is not None]
    by = shown_name(edits[-1]) if edits else "?"
    log.info("approval_reshown", approval_id=record.id, surfaces=int(
        await _again(outbound, rendered, record, delivery, by)))


async def _again(outbound: Outbound, old: QuestionRecord, record: QuestionRecord,
                 delivery: DeliveryRecord, by: str) -> bool:
    adapter = outbound.surfaces.adapter_for(delivery.surface)
    if adapter is None:
        return False
    if delivery.message_ref is not None:
        locale = outbound.surfaces.locale_for(record.agent, delivery.surface)
        final = Finalization(kind="answered",
                             status_line=tr(locale, EDITED_BY, name=by),
                             prompt=outbound.surfaces.prompt(old, delivery.surface))
        target = Delivery(record.id, delivery.surface, MessageRef(delivery.message_ref))
        try:
            async with (outbound.turn(delivery.surface, Priority.EDIT),
                        asyncio.timeout(outbound.timeouts.finalize)):
                await adapter.finalize(target, final)
        except Exception as exc:  # the new prompt below still goes out
            log.warning("edit_notice_failed", question_id=record.id, surface=delivery.surface,
                        error=type(exc).__name__)
    return await outbound.deliver_to(record, delivery.surface, resend=True)
