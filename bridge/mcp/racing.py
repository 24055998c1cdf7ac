"""The host's own form raced against the remote surfaces, once for both ways `ask_user` reaches
askbridge: in-process at /mcp (`BrokerAsker`) and over HTTP from `askbridge mcp` (`HttpAsker`).

2026-07-28: answer `input_required` with the form; the retry's input is taken, or refused with a
new form saying why, or (dismissed) the call waits. 2025-11-25: `elicitation/create` beside the
wait until the host answers well, skips or dismisses. Accept = an answer, decline = Skip, cancel =
keep waiting; an answer that won first makes the form's late input harmless."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Awaitable
from typing import Protocol

import structlog

from bridge.mcp.host_form import ELICIT_KEY, HostReply, form_message, form_schema, read_reply
from bridge.mcp.tool import FormRound, HostCall, Progress, with_progress
from bridge.model.contract import AskRequest, AskResult
from bridge.store.records import now_ms

log = structlog.get_logger("askbridge.mcp")


class Asked(Protocol):
    """The question a call asked or re-attached to, as far as the race needs it."""

    @property
    def id(self) -> str: ...

    @property
    def request(self) -> AskRequest: ...

    @property
    def created_at(self) -> int: ...


class FormRace(ABC):
    """Ask (or re-attach), offer the host's form when `race`, and wait with progress counted
    from the question's creation."""

    interval: float

    @abstractmethod
    def locale(self) -> str: ...

    @abstractmethod
    async def submit(self, asked: Asked, answers: dict[str, list[str]] | None) -> str | None:
        """Hand in the form's answer (None: Skip); the reason it was refused, if it was."""

    @abstractmethod
    def wait_modern(self, asked: Asked) -> Awaitable[AskResult]: ...

    @abstractmethod
    def wait_legacy(self, asked: Asked, host: HostCall) -> Awaitable[AskResult]: ...

    async def url_round(self, asked: Asked, host: HostCall) -> FormRound | None:
        """2026-07-28, a host that opens links but shows no form: the answer page's URL
        request to answer `input_required` with, or None to wait (only /mcp offers one)."""
        return None

    def url_offer(self, asked: Asked, host: HostCall) -> asyncio.Task[None] | None:
        """2025-11-25, the same: the URL elicitation beside the wait, or None."""
        return None

    async def race(self, asked: Asked, progress: Progress, host: HostCall,
                   race: bool, linked: bool = False) -> AskResult | FormRound:
        if host.modern:
            shown = (await self._form_round(asked, host) if race
                     else await self.url_round(asked, host) if linked else None)
            if shown is not None:
                return shown
            return await self.waited(asked, progress, self.wait_modern(asked))
        form = asyncio.create_task(self._host_form(asked, host)) if race and host.elicit else None
        offered = form is None and linked
        if offered:  # the answer page instead of a form
            form = self.url_offer(asked, host)
        try:
            result = await self.waited(asked, progress, self.wait_legacy(asked, host))
        finally:
            if form is not None:  # withdrawn (the host is told) before the result goes out
                form.cancel()
                await asyncio.gather(form, return_exceptions=True)
        if offered and form is not None:
            await _url_done(asked, host)
        return result

    async def waited(self, asked: Asked, progress: Progress,
                     waiting: Awaitable[AskResult]) -> AskResult:
        """`waiting`, reporting progress counted from the question's creation (a re-attached
        call's time left is the question's, not a new call's)."""
        age = max(0.0, (now_ms() - asked.created_at) / 1000)
        return await with_progress(waiting, progress, self.interval,
                                   asked.request.timeout_seconds, age)

    def _round(self, asked: Asked, problem: str | None = None) -> FormRound:
        return FormRound(form_message(asked.request, problem),
                         form_schema(asked.request, self.locale()), str(asked.id))

    async def _form_round(self, asked: Asked, host: HostCall) -> FormRound | None:
        """2026-07-28: the form to answer `input_required` with, or None to wait for the end
        (the retry's input was taken, or the form was dismissed)."""
        given = (host.responses or {}).get(ELICIT_KEY)
        if given is None or host.state != str(asked.id):
            return self._round(asked)
        reply = read_reply(asked.request, str(getattr(given, "action", "cancel")),
                           getattr(given, "content", None))
        problem = await self._take(asked, reply)
        return self._round(asked, problem) if problem else None

    async def _host_form(self, asked: Asked, host: HostCall) -> None:
        """2025-11-25: `elicitation/create` until the host answers well, skips or dismisses."""
        assert host.elicit is not None
        problem: str | None = None
        while True:
            shown = self._round(asked, problem)
            try:
                result = await host.elicit(shown.message, shown.schema)
            except Exception as exc:  # the host cannot show it: the remote surfaces go on
                log.info("mcp_host_form_failed", question_id=asked.id, error=str(exc))
                return
            problem = await self._take(asked, read_reply(asked.request, result.action,
                                                         result.content))
            if problem is None:
                return

    async def _take(self, asked: Asked, reply: HostReply) -> str | None:
        if reply.answers is None and not reply.skipped:
            log.info("mcp_host_form_dismissed", question_id=asked.id)
            return None
        return await self.submit(asked, None if reply.skipped else reply.answers)


async def _url_done(asked: Asked, host: HostCall) -> None:
    """2025-11-25: the page the host was sent to is done with (answered there or elsewhere, or
    the question ended): `notifications/elicitation/complete`, before the call's result, so a
    host showing the link can put it away."""
    if host.elicit_complete is None:
        return
    try:
        await host.elicit_complete(str(asked.id))
    except Exception as exc:  # the stream is gone: the result cannot reach the host either
        log.info("mcp_url_complete_failed", question_id=asked.id, error=str(exc))
