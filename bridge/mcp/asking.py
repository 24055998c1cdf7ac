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
from bridge.mcp.racing import Asked, FormRace
from bridge.mcp.tool import AskFailure, FormRound, HostCall, Progress
from bridge.mcp.waits import Restarting, Waits
from bridge.model.contract import AskResult
from bridge.model.errors import BridgeError
from bridge.model.ids import QuestionId
from bridge.model.inbound import HOST_SURFACE, host_form_answer
from bridge.model.validation import parse_ask_request, session_key
from bridge.store.records import QuestionRecord

log = structlog.get_logger("askbridge.mcp")


class BrokerAsker(FormRace):
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
        try:
            return await self.race(record, progress, host, race, linked)
        except Restarting:
            raise AskFailure(f"askbridge is restarting; question {record.id} stays pending. Call "
                             "ask_user again with the same questions to pick up its result."
                             ) from None

    def wait_modern(self, asked: Asked) -> Awaitable[AskResult]:
        assert isinstance(asked, QuestionRecord)
        return self.waits.stateless_era(asked)

    def wait_legacy(self, asked: Asked, host: HostCall) -> Awaitable[AskResult]:
        assert isinstance(asked, QuestionRecord)
        return self.waits.handshake_era(asked, self.gone(host.request))

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

    def locale(self) -> str:
        return str(self.broker.agent(self.agent).locale)

    async def submit(self, asked: Asked, answers: dict[str, list[str]] | None) -> str | None:
        outcome = await self.receiver.host_answered(host_form_answer(QuestionId(asked.id),
                                                                     answers))
        return None if outcome.accepted else outcome.text

    async def url_round(self, asked: Asked, host: HostCall) -> FormRound | None:
        assert isinstance(asked, QuestionRecord)
        found = self.links and await url_mode.url_round(
            self.links, asked, HOST_SURFACE, self.locale(), host.responses, host.state)
        return FormRound(found[0], {}, str(asked.id), url=found[1]) if found else None

    def url_offer(self, asked: Asked, host: HostCall) -> asyncio.Task[None] | None:
        assert isinstance(asked, QuestionRecord)
        if host.elicit_url is None or self.links is None:
            return None
        return asyncio.create_task(url_mode.offer(self.links, asked, HOST_SURFACE, self.locale(),
                                                  host.elicit_url))
