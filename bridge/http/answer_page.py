"""`GET|POST /l/{token}`: the answer page a signed link opens (`bridge.core.card_links`).

Served by the bridge itself, whichever adapters are on. The token names one question, one
surface and one person; the page answers as that person on that surface, through the same
`InboundSink` an adapter uses, so the core's checks (who may answer, payload hash, reason
required) are the same. A GET only shows (link previews follow links); only a POST answers.
Nothing here logs the token or anything a person wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal
from urllib.parse import parse_qs

import structlog
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from bridge.core.adapter_reads import AdapterReads
from bridge.core.card_links import LinkHolder
from bridge.core.receiver import Receiver
from bridge.http import answer_html as html
from bridge.model.approval import arguments_problems
from bridge.model.ids import SurfaceId, surface_platform, surface_target
from bridge.model.inbound import AnswerSubmitted, ApprovalDecided, InboundReply
from bridge.model.json_input import BadJson, parse_json
from bridge.model.prompt import Prompt
from bridge.model.validation import Problem
from bridge.runtime.config import BridgeConfig
from bridge.runtime.people import People
from bridge.text.i18n import DEFAULT_LOCALE, negotiate, tr

log = structlog.get_logger("askbridge.links")
HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
           "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
           "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
           "form-action 'self'; frame-ancestors 'none'"}
MAX_FORM_BYTES = 64 * 1024
"""A form is a few choices, a reason or edited arguments (at most 16 KiB of JSON)."""
CHOICES: dict[str, Literal["approve", "reject", "allow"]] = {
    "approve": "approve", "allow": "allow", "reject": "reject", "edit": "approve"}
"""The page's buttons and what each tells the core; Allow for 1 h is Approve plus the rule for
these arguments, as on every surface's buttons."""
SINGLE_USER = ("web", "mcp")
"""Surfaces with one person behind them: whoever the link names answers there."""


def may_answer(config: BridgeConfig, surface: SurfaceId, user: str) -> bool:
    """The adapters' own rule, from their config: the listed `answerers`, or the person whose
    private conversation the surface is (a Telegram private chat, an e-mail address); a webhook
    channel without `answerers` lets anyone answer, as its adapter does."""
    platform, target = surface_platform(surface), surface_target(surface)
    if platform in SINGLE_USER:
        return True
    people = People(config.people)
    if platform == "webhook":
        channel = target.partition(":")[0]
        table = (config.section("webhooks") or {}).get(channel) or {}
        listed = [str(a) for a in people.answerers("webhooks", table.get("answerers") or [],
                                                     channel)]
        return not listed or user in listed
    section = config.section(platform) or {}
    listed = [str(a) for a in people.answerers(platform, section.get("answerers") or [])]
    return user in listed or target.casefold() == user.casefold()


class AnswerPage:
    def __init__(self, reads: AdapterReads, sink: Receiver, config: BridgeConfig) -> None:
        self.reads, self.sink, self.config = reads, sink, config

    def routes(self) -> list[BaseRoute]:
        return [Route("/l/{token}", self.show, methods=["GET"]),
                Route("/l/{token}", self.answer, methods=["POST"])]

    def _html(self, body: str, status: int = 200) -> HTMLResponse:
        return HTMLResponse(body, status, headers=HEADERS)

    def _invalid(self, request: Request) -> Response:
        loc = negotiate(request.headers.get("accept-language"), DEFAULT_LOCALE)
        return self._html(html.notice(loc, tr(loc, "This link is not valid"), tr(
            loc, "It may have been cut short when it was copied. Open the link from the "
            "message again, or answer where the question was sent.")), 404)

    def _ended(self, loc: str, said: str | None = None) -> Response:
        return self._html(html.notice(loc, tr(loc, "Already ended"),
                                      said or tr(loc, "This question has already ended.")), 410)

    async def _find(self, request: Request) -> tuple[LinkHolder, Prompt] | Response:
        """The link's holder and the still-pending prompt, or the page that says why not."""
        links = self.reads.links
        holder = await links.check(request.path_params["token"]) if links else None
        if holder is None:
            log.info("answer_link_refused")
            return self._invalid(request)
        prompt = await self.reads.prompt_for(holder.question_id, holder.surface)
        if prompt is not None and not await self._sent_there(holder):
            log.info("answer_link_not_sent_there", question_id=holder.question_id)
            return self._invalid(request)
        if prompt is None:
            return self._ended(negotiate(request.headers.get("accept-language"), DEFAULT_LOCALE))
        return holder, prompt

    async def _sent_there(self, holder: LinkHolder) -> bool:
        """A link answers only where the question went (the MCP host had no delivery: its
        link answers as its form does)."""
        if surface_platform(holder.surface) == "mcp":
            return True
        view = await self.reads.question_view(holder.question_id)
        return view is not None and holder.surface in view.get("surfaces", [])

    async def show(self, request: Request) -> Response:
        found = await self._find(request)
        if isinstance(found, Response):
            return found
        holder, prompt = found
        return await self._form(holder, prompt)

    async def _form(self, holder: LinkHolder, prompt: Prompt, said: str | None = None,
                    edited: str | None = None, problems: list[Problem] | None = None,
                    status: int = 200) -> Response:
        if prompt.approval is not None:
            view = await self.reads.approval_view(holder.question_id)
            if view is not None:
                return self._html(html.approval_form(prompt.locale, view, said, edited,
                                                     problems), status)
        return self._html(html.question_form(prompt, said), status)

    async def answer(self, request: Request) -> Response:
        found = await self._find(request)
        if isinstance(found, Response):
            return found
        holder, prompt = found
        body = await request.body()
        if len(body) > MAX_FORM_BYTES:
            return self._html(html.notice(prompt.locale, tr(prompt.locale, "Not recorded"), tr(
                prompt.locale, "The form is too long; shorten what you wrote.")), 413)
        form = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
        authorized = may_answer(self.config, holder.surface, holder.user)
        if prompt.approval is not None:
            return await self._decide(holder, prompt, form, authorized)
        event = AnswerSubmitted(holder.surface, holder.user, holder.question_id,
                                _answers(prompt, form), authorized=authorized,
                                locale=prompt.locale)
        # The MCP host had no prompt delivered: its link answers as its own form does.
        reply = await (self.sink.host_answered(event) if surface_platform(holder.surface) == "mcp"
                       else self.sink.answers_submitted(event))
        return await self._replied(holder, prompt, reply, "question")

    async def _decide(self, holder: LinkHolder, prompt: Prompt, form: dict[str, list[str]],
                      authorized: bool) -> Response:
        decision, digest = _first(form, "decision"), _first(form, "hash").lower()
        if decision not in CHOICES or not digest:  # the page's buttons always send both
            return await self._form(holder, prompt, status=422, said=tr(
                prompt.locale, "Press Approve, Allow for 1 h, Reject or Approve edited on this "
                "page."))
        arguments: dict[str, Any] | None = None
        if decision == "edit":
            text = _first(form, "arguments")
            view = await self.reads.approval_view(holder.question_id)
            schema = (view or {}).get("request", {}).get("argumentsSchema")
            try:
                arguments = parse_json(text.encode())
                problems = arguments_problems(arguments, schema)
            except BadJson as exc:
                problems = list(exc.problems)
            if problems:
                return await self._form(holder, prompt, edited=text, problems=problems,
                                        status=422)
        reply = await self.sink.approval_decided(ApprovalDecided(
            holder.surface, holder.user, holder.question_id,
            CHOICES[decision], authorized=authorized,
            reason=_first(form, "reason").strip(), arguments=arguments,
            payload_hash=digest, locale=prompt.locale))
        return await self._replied(holder, prompt, reply, decision)

    async def _replied(self, holder: LinkHolder, prompt: Prompt, reply: InboundReply,
                       kind: str) -> Response:
        # The platform only: a surface can be a person's address or phone number.
        log.info("answer_link_answer", question_id=holder.question_id,
                 platform=surface_platform(holder.surface),
                 kind=kind, accepted=reply.accepted, ended=reply.ended)
        loc = reply.locale or prompt.locale
        if reply.accepted:
            return self._html(html.notice(loc, tr(loc, "Thank you"), reply.text or ""))
        if not reply.handled:  # not sent there: cannot happen after _find, but never say "ok"
            return self._html(html.notice(loc, tr(loc, "Not recorded"), ""), 403)
        if reply.ended or reply.text is None:  # None: it ended before this answer came
            return self._ended(loc, reply.text)
        return await self._form(holder, prompt, said=reply.text, status=422)


def _first(form: dict[str, list[str]], name: str) -> str:
    return (form.get(name) or [""])[0]


def _answers(prompt: Prompt, form: dict[str, list[str]]) -> dict[str, list[str]] | None:
    """The labels picked and any words typed, per question id; None when Skip was pressed."""
    if _first(form, "do") == "skip":
        return None
    answers: dict[str, list[str]] = {}
    for i, question in enumerate(prompt.questions):
        picked = [question.options[int(v)][0] for v in _picked(form.get(f"q{i}", []),
                                                               len(question.options))]
        own = _first(form, f"t{i}").strip()
        if own:
            picked.append(own)
        if picked:
            answers[question.id] = picked
    return answers


def _picked(values: Sequence[str], count: int) -> list[str]:
    return [v for v in dict.fromkeys(values)
            if len(v) <= 3 and v.isascii() and v.isdigit() and int(v) < count]
