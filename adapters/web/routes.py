"""The Control UI over HTTP: login, page and assets, JSON at /ui/api, live events at /ui/events."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import structlog
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from adapters.web.cards import with_cards
from adapters.web.inbound import AnswerBody, event_from, reply_response
from adapters.web.render import SSE_HELLO, SSE_PING, index_page, sse, ui_view
from adapters.web.security import CSRF_COOKIE, SESSION_COOKIE, WebAuth
from adapters.web.sessions import END_PATH, Sessions
from bridge import (
    LOCALE_NAMES,
    LOCALES,
    AgentName,
    AnswerSubmitted,
    BadJson,
    BadText,
    InboundSink,
    Queries,
    QuestionId,
    SessionKey,
    negotiate,
    tr,
    translations,
)
from bridge.http import error_response, read_json

log = structlog.get_logger("askbridge.web")
STATIC = Path(__file__).parent / "static"
ASSETS = {"app.js": "text/javascript", "dom.js": "text/javascript", "panel.js": "text/javascript",
          "i18n.js": "text/javascript", "pwa.js": "text/javascript", "sessions.js": "text/javascript",
          "live.js": "text/javascript", "timeline.js": "text/javascript", "app.css": "text/css",
          "approval.js": "text/javascript", "rules.js": "text/javascript",
          "icon-192.png": "image/png", "icon-512.png": "image/png"}
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}
ICON = (  # the same "?" mark as the UI's logo, inline: no extra request, no 404
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3C"
    "rect width='32' height='32' rx='8' fill='%233d5bd9'/%3E%3Ctext x='16' y='23' font-size"
    "='20' font-weight='700' text-anchor='middle' fill='%23fff' font-family='sans-serif'%3E"
    "%3F%3C/text%3E%3C/svg%3E")
LANG_COOKIE = "askbridge_lang"
"""The language a person picked with the page's switch; it wins over Accept-Language."""


def signed_out_page(locale: str, wrong_token: bool = False) -> str:
    """The sign-in page; `wrong_token` when a login link carried a token that is not this
    server's (a link from another askbridge, an older start, or a copy that lost a character)."""
    if wrong_token:
        title = tr(locale, "That login token is wrong")
        lead = tr(locale, "This server's web token is a different one (a link from another "
                  "askbridge, an older start, or a copy that lost a character).") + " "
    else:
        title, lead = tr(locale, "Sign in to askbridge"), ""
    return (
        f"<!doctype html><html lang={locale}><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width'>"
        f"<title>askbridge · {tr(locale, 'sign in')}</title><link rel=icon href=\"{ICON}\">"
        "<link rel=stylesheet href='/ui/static/app.css'>"
        f"<div class=signed-out><h1>{title}</h1><p>{lead}"
        + tr(locale, "Open the login link that {command} printed ({link}). It signs this browser "
             "in and then drops the token from the address bar.",
             command="<code>askbridge serve</code>", link="<code>http://…/?token=…</code>")
        + "</p></div>"
    )


SIGN_IN = "Sign in with the login link askbridge serve printed."
STREAM_SECONDS = 25.0
"""Streams end by themselves now and then so a stopping server never waits on a page;
EventSource reconnects and the page refetches its state on every (re)connect."""
PING_SECONDS = 10.0
Handler = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True, slots=True)
class Core:
    """The broker as the UI's routes see it: where answers go, and where records come from."""

    sink: InboundSink
    queries: Queries


class Hub(Protocol):
    """What the routes need from the adapter: the broker (once started) and the live listeners."""

    core: Core | None
    listeners: set[asyncio.Queue[dict[str, Any]]]


def _error(status: int, code: str, msg: str) -> JSONResponse:
    return error_response(status, msg, "request", code=code, headers=SECURITY_HEADERS)


def _json(body: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=SECURITY_HEADERS)


class WebRoutes:
    def __init__(self, hub: Hub, auth: WebAuth, locale: str, sessions: Sessions) -> None:
        self.hub = hub
        self.auth = auth
        self.sessions = sessions
        self.locale = locale
        """The fallback when the browser asks for none of our languages (`[web] locale`)."""
        self.files = {name: (STATIC / name).read_bytes() for name in ASSETS}
        self.page = (STATIC / "index.html").read_text(encoding="utf-8")

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/", self.index, methods=["GET"]),
            Route("/ui/static/{name}", self.asset, methods=["GET"]),
            Route("/ui/api/state", self._api(self.state), methods=["GET"]),
            Route("/ui/api/i18n", self._api(self.strings), methods=["GET"]),
            Route("/ui/api/timeline", self._api(self.timeline), methods=["GET"]),
            Route("/ui/api/questions/{question_id}", self._api(self.question), methods=["GET"]),
            Route("/ui/api/questions/{question_id}/answer", self._api(self.answer, change=True),
                  methods=["POST"]),
            Route("/ui/events", self.events, methods=["GET"]),
            Route(END_PATH, self._api(lambda r, _: self.sessions.end_everywhere(r), change=True),
                  methods=["POST"]),
        ]

    def locale_of(self, request: Request) -> str:
        """The person's switch (cookie), else the browser's Accept-Language, else `[web]`'s."""
        chosen = request.cookies.get(LANG_COOKIE, "")
        if chosen in LOCALES:
            return chosen
        return negotiate(request.headers.get("accept-language"), self.locale)

    def _signed_out(self, request: Request, wrong_token: bool = False) -> Response:
        return Response(signed_out_page(self.locale_of(request), wrong_token), 401, headers=SECURITY_HEADERS,
                        media_type="text/html")

    async def _session(self, request: Request) -> str | None:
        return await self.sessions.nonce(request, started=self.hub.core is not None)

    # pages ---------------------------------------------------------------------------------

    async def index(self, request: Request) -> Response:
        token = request.query_params.get("token")
        if token is not None:
            if not self.auth.token_ok(token):
                log.warning("web_login_refused")
                return self._signed_out(request, wrong_token=True)
            return self._login(request)
        if await self._session(request) is None:
            return self._signed_out(request)
        locale = self.locale_of(request)
        page = index_page(self.page, locale, self.strings_of(locale))
        return Response(page, headers=SECURITY_HEADERS, media_type="text/html")

    def _login(self, request: Request) -> Response:
        session, csrf = self.auth.new_session()
        response = RedirectResponse("/", status_code=303, headers=SECURITY_HEADERS)
        secure = request.url.scheme == "https"
        response.set_cookie(SESSION_COOKIE, session, max_age=self.auth.max_age, httponly=True,
                            samesite="lax", secure=secure, path="/")
        response.set_cookie(CSRF_COOKIE, csrf, max_age=self.auth.max_age, httponly=False,
                            samesite="strict", secure=secure, path="/")
        log.info("web_login")
        return response

    async def asset(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return _error(404, "not_found", "There is no such asset.")
        return Response(self.files[name], media_type=ASSETS[name],
                        headers={**SECURITY_HEADERS, "cache-control": "no-cache"})

    # JSON API --------------------------------------------------------------------------------

    def _api(self, handler: Callable[[Request, Core], Awaitable[Response]],
             change: bool = False) -> Handler:
        async def guarded(request: Request) -> Response:
            nonce = await self._session(request)
            if nonce is None:
                return _error(401, "unauthorized", SIGN_IN)
            if change and not self.auth.same_origin(request, required=True):
                log.warning("web_origin_refused", path=request.url.path)
                return _error(403, "forbidden", "Cross-origin requests are refused.")
            if change and not self.auth.csrf_ok(request, nonce):
                log.warning("web_csrf_refused", path=request.url.path)
                return _error(403, "forbidden", "The CSRF token is missing or wrong; reload.")
            if self.hub.core is None:
                return _error(503, "starting", "askbridge is starting; try again in a moment.")
            return await handler(request, self.hub.core)

        return guarded

    @staticmethod
    def strings_of(locale: str) -> dict[str, Any]:
        """The page's words in `locale`, and the languages it can switch to."""
        return {"locale": locale, "messages": translations(locale),
                "locales": [{"code": c, "name": LOCALE_NAMES[c]} for c in LOCALES]}

    async def strings(self, request: Request, core: Core) -> Response:
        return _json(self.strings_of(self.locale_of(request)))

    def guard(self, handler: Callable[[Request, Core], Awaitable[Response]],
              change: bool) -> Handler:
        """The guard every UI API route passes, for routes defined elsewhere (push, pwa.py)."""
        return self._api(handler, change)

    async def state(self, request: Request, core: Core) -> Response:
        pending = [ui_view(v) for v in await with_cards(core.queries,
                                                        await core.queries.pending_views())]
        return _json({"now": int(time.time() * 1000), "sessions": await core.queries.session_views(),
                      "pending": [v for v in pending if v["answerable"]]})

    async def timeline(self, request: Request, core: Core) -> Response:
        agent = request.query_params.get("agent", "")
        session = request.query_params.get("session", "")
        items = await with_cards(core.queries, await core.queries.timeline_view(
            AgentName(agent), SessionKey(session)))
        return _json({"agent": agent, "session": session, "items": [ui_view(v) for v in items],
                      "keep": core.queries.keep})

    async def question(self, request: Request, core: Core) -> Response:
        view = await core.queries.question_view(QuestionId(request.path_params["question_id"]))
        if view is None:
            return _error(404, "not_found", "There is no such question.")
        return _json(ui_view(view))

    async def answer(self, request: Request, core: Core) -> Response:
        question_id = request.path_params["question_id"]
        locale = self.locale_of(request)
        try:
            body = AnswerBody.model_validate(await read_json(request))
        except BadText as exc:
            return error_response(422, details=[p.model_dump() for p in exc.problems],
                                  headers=SECURITY_HEADERS)
        except (BadJson, ValidationError):
            return _error(422, "invalid_request",
                          'Send {"answers": {"<question id>": ["<label or text>"]}} or '
                          '{"answers": null} to skip.')
        view = await core.queries.question_view(QuestionId(question_id))
        if view is None:
            return _error(404, "not_found", tr(locale, "There is no such question."))
        if "web" not in view["surfaces"]:
            return _error(403, "forbidden", tr(locale, "This question was not sent to the web UI."))
        event = event_from(question_id, body, locale)
        assert isinstance(event, AnswerSubmitted)  # a form's body is always an answer or a skip
        status, reply = reply_response(await core.sink.answers_submitted(event))
        log.info("web_answer", question_id=question_id, skipped=body.answers is None,
                 status=status)
        return _json(reply, status)

    # live channel ----------------------------------------------------------------------------

    async def events(self, request: Request) -> Response:
        if await self._session(request) is None:
            return _error(401, "unauthorized", SIGN_IN)
        if not self.auth.same_origin(request, required=False):
            log.warning("web_origin_refused", path=request.url.path)
            return _error(403, "forbidden", "Cross-origin event streams are refused.")
        return StreamingResponse(self._stream(), media_type="text/event-stream",
                                 headers={**SECURITY_HEADERS, "x-accel-buffering": "no"})

    async def _stream(self) -> AsyncIterator[bytes]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.hub.listeners.add(queue)
        loop = asyncio.get_running_loop()
        end = loop.time() + STREAM_SECONDS
        try:
            yield SSE_HELLO + sse({"type": "hello"})
            while (left := end - loop.time()) > 0:
                try:  # a timeout scope, not wait_for: on 3.11 that can swallow a cancel
                    async with asyncio.timeout(min(PING_SECONDS, left)):
                        event = await queue.get()
                except TimeoutError:
                    yield SSE_PING
                    continue
                if event["type"] == "bye":
                    return
                yield sse(event)
        finally:
            self.hub.listeners.discard(queue)
