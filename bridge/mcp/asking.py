"""An `ask_user` call at /mcp, in-process: ask (or re-attach), race the host's own form against
the remote surfaces when the host can show one, and wait as the call's revision says."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import mcp.types as mt
import structlog

from bridge.core.blocking_ask import ask_or_attach
from bridge.core.broker import Broker
from bridge.core.card_links import CardLinks
from bridge.core.receiver import Receiver
from bridge.mcp import apps, url_mode
from bridge.mcp.host_form import ELICIT_KEY, HostReply, form_message, form_schema, read_reply
from bridge.mcp.tool import AskFailure, FormRound, HostCall, Progress, with_progress
from bridge.mcp.waits import Restarting, Waits
from bridge.model.contract import AskResult
from bridge.model.errors import BridgeError
from bridge.model.ids import QuestionId, SurfaceId, UserRef
from bridge.model.inbound import AnswerSubmitted
from bridge.model.validation import parse_ask_request, session_key
from bridge.store.records import QuestionRecord, now_ms

log = structlog.get_logger("askbridge.mcp")
HOST_SURFACE = SurfaceId("mcp")
"""Where an answer from the asking host's own form comes from, in the record's `answeredBy`."""


class BrokerAsker:
    """Asks in-process for the agent that made the HTTP request."""

    def __init__(self, broker: Broker, receiver: Receiver, waits: Waits, agent: str, session: str,
                 interval: float, gone: Callable[[Any], Awaitable[Any]],
                 links: CardLinks | None = None) -> None:
        self.links = links
        self.broker = broker
        self.receiver = receiver
        self.waits = waits
        self.agent = agent
        self.session = session
        self.interval = interval
        self.gone = gone

    async def may_ask(self) -> bool:
        return self.broker.agent(self.agent).role == "main"

    async def answer_card(self, arguments: dict[str, Any]) -> mt.CallToolResult:
        """The person's answer from the question card (MCP Apps), for this agent only."""
        return await apps.answer(self.broker, self.receiver, self.agent,
                                 str(session_key(self.session)), arguments)

    async def ask(self, arguments: dict[str, Any], progress: Progress,
                  host: HostCall) -> AskResult | FormRound:
        request = parse_ask_request(arguments)
        session = session_key(self.session)  # a bad header is the same refusal as over /v1
        try:
            record = (await self._retried(host, session)
                      or await ask_or_attach(self.broker, self.agent, session, request))
        except BridgeError as exc:
            raise AskFailure(str(exc)) from None
        in_host = self.broker.agent(self.agent).host_form == "race"
        race, linked = host.form and in_host, not host.form and host.url and in_host
        if host.modern:
            shown = (await self._form_round(record, host) if race
                     else await self._url_round(record, host) if linked else None)
            if shown is not None:
                return shown
            return await self._wait(record, progress, self.waits.stateless_era(record))
        form = asyncio.create_task(self._host_form(record, host)) if race and host.elicit else None
        if linked and host.elicit_url and self.links:  # the answer page instead of a form
            form = asyncio.create_task(url_mode.offer(
                self.links, record, HOST_SURFACE, self._locale(), host.elicit_url))
        try:
            return await self._wait(record, progress,
                                    self.waits.handshake_era(record, self.gone(host.request)))
        finally:
            if form is not None:
                form.cancel()

    async def _retried(self, host: HostCall, session: str) -> QuestionRecord | None:
        """2026-07-28: the question a retry's requestState names (the SDK verified it was sealed
        here, for this agent and these arguments), even if it ended meanwhile: a remote answer
        that won is what the retry returns."""
        if not (host.modern and host.state):
            return None
        record = await self.broker.store.get_question(QuestionId(host.state))
        if record is None or record.agent != self.agent or record.session != session:
            return None
        return record

    async def _wait(self, record: QuestionRecord, progress: Progress,
                    waiting: Awaitable[AskResult]) -> AskResult:
        age = max(0.0, (now_ms() - record.created_at) / 1000)
        try:
            return await with_progress(waiting, progress, self.interval,
                                       record.request.timeout_seconds, age)
        except Restarting:
            raise AskFailure(f"askbridge is restarting; question {record.id} stays pending. Call "
                             "ask_user again with the same questions to pick up its result."
                             ) from None

    def _locale(self) -> str:
        return str(self.broker.agent(self.agent).locale)

    def _round(self, record: QuestionRecord, problem: str | None = None) -> FormRound:
        return FormRound(form_message(record.request, problem),
                         form_schema(record.request, self._locale()), str(record.id))

    async def _form_round(self, record: QuestionRecord, host: HostCall) -> FormRound | None:
        """2026-07-28: the form to answer `input_required` with, or None to wait for the end
        (the retry's input was taken, or the form was dismissed)."""
        given = (host.responses or {}).get(ELICIT_KEY)
        if given is None or host.state != str(record.id):
            return self._round(record)
        reply = read_reply(record.request, str(getattr(given, "action", "cancel")),
                           getattr(given, "content", None))
        problem = await self._take(record, reply)
        return self._round(record, problem) if problem else None

    async def _url_round(self, record: QuestionRecord, host: HostCall) -> FormRound | None:
        found = self.links and await url_mode.url_round(
            self.links, record, HOST_SURFACE, self._locale(), host.responses, host.state)
        return FormRound(found[0], {}, str(record.id), url=found[1]) if found else None

    async def _host_form(self, record: QuestionRecord, host: HostCall) -> None:
        """2025-11-25: `elicitation/create` until the host answers well, skips or dismisses."""
        assert host.elicit is not None
        problem: str | None = None
        while True:
            shown = self._round(record, problem)
            try:
                result = await host.elicit(shown.message, shown.schema)
            except Exception as exc:  # the host cannot show it: the remote surfaces go on
                log.info("mcp_host_form_failed", question_id=record.id, error=str(exc))
                return
            problem = await self._take(record, read_reply(record.request, result.action,
                                                          result.content))
            if problem is None:
                return

    async def _take(self, record: QuestionRecord, reply: HostReply) -> str | None:
        """Offer the host's reply as an answer; the reason it was refused, if it was."""
        if reply.answers is None and not reply.skipped:
            log.info("mcp_host_form_dismissed", question_id=record.id)
            return None
        outcome = await self.receiver.host_answered(AnswerSubmitted(
            surface=HOST_SURFACE, user=UserRef("host"), question_id=record.id,
            answers=None if reply.skipped else reply.answers))
        if outcome.accepted or outcome.text is None:
            return None
        return outcome.text
