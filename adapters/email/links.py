"""The HTTP side of e-mail: a prompt's links (`/e/{token}`) and raw replies posted by a provider.

`GET /e/{token}` only shows the confirm page; its button POSTs to the same address, which
answers (once: the question ends with it). The token is the capability: it is checked against
the question's own deliveries, so a link works only for the question and address it was made
for. A multiple-choice or several-question prompt opens the signed answer page (`/l/…`) for
the same address instead of guessing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal
from urllib.parse import parse_qs

import structlog
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from adapters.email import page
from adapters.email.ids import address_of
from adapters.email.tokens import Tokens, action_of, question_of, shown_of
from bridge import (
    DEFAULT_LOCALE,
    SIGNATURE_HEADER,
    ApprovalDecided,
    ButtonAction,
    ButtonPressed,
    InboundSink,
    Prompt,
    Queries,
    QuestionId,
    SurfaceId,
    UserRef,
    negotiate,
    tr,
    verify_signature,
)
from bridge.http import error_response

log = structlog.get_logger("askbridge.email")
HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
           "X-Frame-Options": "DENY", "Content-Security-Policy":
           "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"}
Decision = Literal["approve", "reject", "allow"]
DECISIONS: tuple[Decision, ...] = ("approve", "reject", "allow")
Found = tuple[QuestionId, SurfaceId, ButtonAction, Prompt | None]
"""The link's question, the surface it was sent to, its action, and the prompt (None: ended)."""


class Links:
    def __init__(self, tokens: Callable[[], Tokens | None], queries: Callable[[], Queries | None],
                 sink: Callable[[], InboundSink | None], locale: str | None,
                 card_url: Callable[[SurfaceId, Prompt], Awaitable[str]]) -> None:
        self._tokens, self._queries, self._sink = tokens, queries, sink
        self.locale = locale
        self.card_url = card_url

    def routes(self, inbound: Callable[[Request], Awaitable[Response]] | None) -> list[BaseRoute]:
        found: list[BaseRoute] = [Route("/e/{token}", self.show, methods=["GET"]),
                                  Route("/e/{token}", self.answer, methods=["POST"])]
        if inbound is not None:
            found.append(Route("/v1/channels/email/inbound", inbound, methods=["POST"]))
        return found

    def _html(self, body: str, status: int = 200) -> HTMLResponse:
        return HTMLResponse(body, status, headers=HEADERS)

    def _loc(self, request: Request) -> str:
        return self.locale or negotiate(request.headers.get("accept-language"), DEFAULT_LOCALE)

    def _invalid(self, request: Request) -> HTMLResponse:
        loc = self._loc(request)
        return self._html(page.notice(loc, tr(loc, "This link is not valid"), tr(
            loc, "It may have been cut short by your mail program. Open the link from the "
            "e-mail again, or answer by replying to the e-mail.")), 404)

    def _ended(self, request: Request, said: str | None = None) -> HTMLResponse:
        """`said`: the core's own words when a press was refused; a GET only looked."""
        loc = self._loc(request)
        return self._html(page.notice(loc, tr(loc, "Already ended"),
                                      said or tr(loc, "This question has already ended.")), 410)

    async def _find(self, request: Request) -> Found | Response:
        tokens, queries = self._tokens(), self._queries()
        if tokens is None or queries is None:
            return error_response(503, "askbridge is starting; try again in a moment.", "request")
        token = request.path_params["token"]
        question_id, action = question_of(token), action_of(token)
        view = await queries.question_view(question_id) if question_id else None
        if question_id is None or action is None or view is None:
            return self._invalid(request)
        surface = tokens.link_surface(token, view.get("surfaces", []))
        if surface is None:
            return self._invalid(request)
        prompt = await queries.prompt_for(question_id, surface)
        if prompt is None:
            return question_id, surface, action, None
        if action != "skip" and (len(prompt.questions) > 1 or prompt.questions[0].multi_select):
            return RedirectResponse(await self.card_url(surface, prompt), 303, headers=HEADERS)
        if isinstance(action, int) and not 0 <= action < len(prompt.questions[0].options):
            return self._invalid(request)
        return question_id, surface, action, prompt

    async def show(self, request: Request) -> Response:
        found = await self._find(request)
        if isinstance(found, Response):
            return found
        _, _, action, prompt = found
        if prompt is None:
            return self._ended(request)
        question = prompt.questions[0]
        if isinstance(action, int):
            choice, description = question.options[action]
        else:
            choice, description = tr(prompt.locale, "Skip"), None
        return self._html(page.confirm(prompt.locale, question.header, question.question, choice,
                                       description, action == "skip",
                                       reason=_decision(prompt, action) == "reject"))

    async def answer(self, request: Request) -> Response:
        found = await self._find(request)
        sink = self._sink()
        if isinstance(found, Response):
            return found
        if sink is None:
            return error_response(503, "askbridge is starting; try again in a moment.", "request")
        question_id, surface, action, prompt = found
        user, shown = UserRef(address_of(surface)), shown_of(request.path_params["token"])
        decision = _decision(prompt, action) if shown else None
        if decision is not None:
            # an approval's choice, for the arguments that mail showed (an edit since: refused)
            reason = ""
            if decision == "reject":  # the confirm page's field; none: the core asks for one
                body = await request.body()
                reason = (parse_qs(body.decode("utf-8", "replace")).get("reason") or [""])[0]
            reply = await sink.approval_decided(ApprovalDecided(
                surface, user, question_id, decision, True, reason[:page.MAX_REASON],
                payload_hash=shown))
        else:
            reply = await sink.button_pressed(ButtonPressed(
                surface, user, question_id, action, authorized=True))
        log.info("email_link_answer", question_id=question_id, accepted=reply.accepted,
                 ended=reply.ended)
        if reply.ended and not reply.accepted:
            return self._ended(request, reply.text)
        loc = reply.locale
        title = tr(loc, "Thank you") if reply.accepted else tr(loc, "Not recorded")
        return self._html(page.notice(loc, title, reply.text or ""), 200 if reply.accepted else 409)


def _decision(prompt: Prompt | None, action: ButtonAction) -> Decision | None:
    """What an approval prompt's link decides (its options are Approve, Reject, Allow for
    1 h, in that order); None for a question's link or a Skip."""
    if prompt is None or prompt.approval is None or not isinstance(action, int):
        return None
    return DECISIONS[action] if action < len(DECISIONS) else None


def inbound_route(secret: str, handle: Callable[[bytes], Awaitable[str]],
                  ready: Callable[[], bool]) -> Callable[[Request], Awaitable[Response]]:
    """`POST /v1/channels/email/inbound`: one raw message (`message/rfc822`), signed."""

    async def inbound(request: Request) -> Response:
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "message/rfc822":
            return error_response(415, "Send the raw message as Content-Type: message/rfc822.",
                                  "header", code="unsupported_media_type")
        body = await request.body()
        if not verify_signature(secret, body, request.headers.get(SIGNATURE_HEADER)):
            log.warning("email_inbound_signature_refused")
            return error_response(401, f"Sign the body with the inbound secret: "
                                  f"{SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256 of the body>.",
                                  "header", code="bad_signature")
        if not ready():
            return error_response(503, "askbridge is starting; try again in a moment.", "request")
        outcome = await handle(body)
        accepted: dict[str, Any] = {"accepted": outcome in ("answered", "kept"),
                                    "outcome": outcome}
        return JSONResponse(accepted)

    return inbound

