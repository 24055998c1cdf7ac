"""A blocking ask, written once for every interface: ask, wait for the end, and cancel the
question when the asker leaves (an answer that already won stays the answer)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Literal

import structlog

from bridge.core.approvals import Approvals
from bridge.core.broker import Broker
from bridge.model.approval import ApprovalRequest
from bridge.model.contract import AskRequest
from bridge.model.errors import Conflict
from bridge.model.ids import QuestionId, SessionKey
from bridge.store.approval_records import ApprovalRecord
from bridge.store.records import QuestionRecord

log = structlog.get_logger("askbridge.api")

Outcome = Literal["ended", "restarting", "gone"]
"""How a blocking ask stopped waiting: the question ended; the server is stopping gracefully
(the question stays pending for the agent to pick up); the asker left (it was cancelled)."""


async def ask_and_wait(broker: Broker, agent: str, session: SessionKey, request: AskRequest,
                       gone: Callable[[], Awaitable[object]]) -> tuple[Outcome, QuestionRecord]:
    """Ask, then wait for whichever comes first: the end, a graceful stop, or `gone` (the
    asker's connection closed for good). A cancelled caller cancels its question too, unless
    the server is draining (then it stays pending for the next start). `gone` is called once
    the question is asked, so a refused ask leaves no watcher behind. The same questions asked
    again while pending re-attach (§2): a retry after a lost response never asks twice."""
    record = await ask_or_attach(broker, agent, session, request)
    return await follow(broker, record, gone)


async def approve_and_wait(approvals: Approvals, agent: str, session: SessionKey,
                           request: ApprovalRequest, gone: Callable[[], Awaitable[object]],
                           ) -> tuple[Outcome, ApprovalRecord]:
    """`request_approval`, blocking (HTTP's /approve, MCP's tool): ask (a rule may approve at
    once), then wait as `ask_and_wait` does; the asker leaving cancels the approval."""
    approval = await approvals.request(agent, session, request)
    if not approval.pending:
        return "ended", approval
    outcome, _ = await follow(approvals.broker, await approvals.broker.get(approval.id), gone)
    return outcome, await approvals.get(approval.id)


async def follow(broker: Broker, record: QuestionRecord, gone: Callable[[], Awaitable[object]],
                 ) -> tuple[Outcome, QuestionRecord]:
    """Wait for an asked question (an approval's backing one too) as `ask_and_wait` does:
    the end, a graceful stop, or the asker leaving (which cancels it)."""
    try:
        outcome, final = await first_outcome(broker, record, gone())
    except asyncio.CancelledError:
        if not broker.draining.is_set():
            await asyncio.shield(abandon(broker, record, "request_cancelled"))
        raise
    if outcome == "gone":
        final = await abandon(broker, record, "client_disconnected")
    return outcome, final


async def ask_or_attach(broker: Broker, agent: str, session: SessionKey, request: AskRequest,
                        waiting: bool = True) -> QuestionRecord:
    """Ask, or re-attach: the same questions asked again while they are pending in the session
    are that question (a retry after a lost response, a host re-issuing a call that timed out
    on its side), with its own deadline; different ones are the 409 as ever."""
    try:
        return await broker.ask(agent, session, request, waiting=waiting)
    except Conflict as exc:
        pending = getattr(exc, "extra", {}).get("pendingId")
        record = await broker.store.get_question(QuestionId(pending)) if pending else None
        if (record is None or not record.pending or record.approval is not None
                or record.request.questions != request.questions):
            raise  # an approval's question is the approval's: never an ask's to re-attach
        log.info("ask_reattached", question_id=record.id, agent=agent, session=session)
        return record


async def first_outcome(broker: Broker, record: QuestionRecord, gone: Awaitable[object],
                        ) -> tuple[Outcome, QuestionRecord]:
    """Wait for the question to end, the server to drain or the asker to leave, whichever
    comes first (an ending that raced a departure still counts as the ending).

    The wait for the end is the caller's own await, not a task of its own: the step that
    wakes it writes the answer, so nothing the resolver does next runs before it."""
    why: list[Outcome] = []
    deadline = asyncio.timeout(None)

    async def interrupt(outcome: Outcome, happened: Awaitable[object]) -> None:
        await happened
        why.append(outcome)
        deadline.reschedule(asyncio.get_running_loop().time())

    watchers = [asyncio.create_task(interrupt("restarting", broker.draining.wait())),
                asyncio.create_task(interrupt("gone", gone))]
    try:
        async with deadline:
            return "ended", await broker.wait(record.id, None)
    except TimeoutError:
        now = await broker.get(record.id)
        return ("ended", now) if not now.pending else (why[0], record)
    finally:
        for task in watchers:
            task.cancel()


async def abandon(broker: Broker, record: QuestionRecord, reason: str) -> QuestionRecord:
    """The waiting agent is gone: cancel its question (an answer that won stays) and say so in
    one line; a departing client is normal, not an error."""
    final = await broker.cancel(record.id)
    log.info("ask_abandoned", question_id=record.id, reason=reason, status=final.status)
    return final
