"""The installable app and its push API: manifest, worker, VAPID key, subscriptions, actions."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import structlog
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from adapters.web.push import Pusher, Subscription
from adapters.web.routes import SECURITY_HEADERS, Handler
from adapters.web.vapid import public_key, vapid_key
from bridge import (
    DEFAULT_LOCALE,
    LOCALES,
    ButtonPressed,
    InboundSink,
    QuestionId,
    SurfaceId,
    UserRef,
    tr,
)

log = structlog.get_logger("askbridge.web")
STATIC = Path(__file__).parent / "static"
THEME = "#3d5bd9"  # the UI's accent, as in the icons
BACKGROUND = "#f6f7fb"
ACTION = re.compile(r"^answer:(\d)$")
Guard = Callable[[Callable[[Request, InboundSink], Awaitable[Response]], bool], Handler]
"""The UI's own guard: session cookie; for changes also same origin and the CSRF header."""


def locale_of(request: Request) -> str:
    """The first language of `Accept-Language` askbridge speaks, else English."""
    for part in request.headers.get("accept-language", "").split(","):
        lang = part.split(";")[0].strip().lower().split("-")[0]
        if lang in LOCALES:
            return lang
    return DEFAULT_LOCALE


def _json(body: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=SECURITY_HEADERS)


def _problem(request: Request, status: int, msg: str, **fields: object) -> JSONResponse:
    code = {403: "forbidden", 404: "not_found", 409: "conflict"}.get(status, "invalid_request")
    return _json({"error": code, "details": [{"loc": "body", "msg": tr(locale_of(request), msg,
                                                                       **fields)}]}, status)


class EndpointBody(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    endpoint: str = Field(min_length=1, max_length=2048)


class ActionBody(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    action: str = Field(max_length=32)


def manifest(locale: str) -> dict[str, Any]:
    return {
        "name": "askbridge", "short_name": "askbridge", "id": "/", "start_url": "/", "scope": "/",
        "display": "standalone", "theme_color": THEME, "background_color": BACKGROUND,
        "description": tr(locale, "Answer your AI agents' questions, from any device."),
        "lang": locale,
        "icons": [{"src": f"/ui/static/icon-{n}.png", "sizes": f"{n}x{n}", "type": "image/png",
                   "purpose": "any"} for n in (192, 512)],
    }


class PwaRoutes:
    def __init__(self, pusher: Pusher, guard: Guard) -> None:
        self.pusher = pusher
        self.guard = guard
        self.worker = (STATIC / "sw.js").read_bytes()

    def routes(self) -> list[BaseRoute]:
        subscriptions = "/ui/api/push/subscriptions"
        return [
            Route("/manifest.webmanifest", self.manifest, methods=["GET"]),
            Route("/sw.js", self.service_worker, methods=["GET"]),
            Route("/ui/api/push/key", self.guard(self.key, False), methods=["GET"]),
            Route(subscriptions, self.guard(self.subscribe, True), methods=["POST"]),
            Route(subscriptions, self.guard(self.unsubscribe, True), methods=["DELETE"]),
            Route("/ui/api/questions/{question_id}/action", self.guard(self.action, True),
                  methods=["POST"]),
        ]

    async def manifest(self, request: Request) -> Response:
        # Browsers fetch the manifest without cookies, so it is public like the static assets.
        return Response(json.dumps(manifest(locale_of(request))),
                        media_type="application/manifest+json",
                        headers={**SECURITY_HEADERS, "cache-control": "no-cache"})

    async def service_worker(self, request: Request) -> Response:
        return Response(self.worker, media_type="text/javascript",
                        headers={**SECURITY_HEADERS, "cache-control": "no-cache",
                                 "service-worker-allowed": "/"})

    async def key(self, request: Request, sink: InboundSink) -> Response:
        return _json({"publicKey": public_key(await vapid_key(self.pusher.state))})

    async def subscribe(self, request: Request, sink: InboundSink) -> Response:
        try:
            sub = Subscription.model_validate_json(await request.body())
        except ValidationError:
            return _problem(request, 422, "Send the browser's PushSubscription.toJSON(): "
                            '{"endpoint": "https://…", "keys": {"p256dh": "…", "auth": "…"}}.')
        await self.pusher.subscribe(sub)
        return _json({"subscribed": True}, 201)

    async def unsubscribe(self, request: Request, sink: InboundSink) -> Response:
        try:
            body = EndpointBody.model_validate_json(await request.body())
        except ValidationError:
            return _problem(request, 422, 'Send {"endpoint": "<the subscription\'s endpoint>"}.')
        forgotten = await self.pusher.unsubscribe(body.endpoint)
        log.info("push_unsubscribed", found=forgotten)
        return Response(status_code=204, headers=SECURITY_HEADERS)

    async def action(self, request: Request, sink: InboundSink) -> Response:
        """A notification's action button, sent by the service worker with the page's cookie."""
        question_id = QuestionId(request.path_params["question_id"])
        try:
            match = ACTION.match(ActionBody.model_validate_json(await request.body()).action)
        except ValidationError:
            match = None
        if match is None:
            return _problem(request, 422, 'Send {"action": "answer:<option number>"}.')
        view = await sink.question_view(question_id)
        if view is None:
            return _problem(request, 404, "There is no such question.")
        questions = view["request"]["questions"]
        if "web" not in view["surfaces"] or len(questions) != 1 or questions[0].get("multiSelect"):
            return _problem(request, 403, "This question cannot be answered from a notification; "
                            "open askbridge to answer it.")
        reply = await sink.button_pressed(ButtonPressed(
            SurfaceId("web"), UserRef("web"), question_id, int(match[1]), authorized=True))
        status = 200 if reply.accepted else 409 if reply.ended else 422
        log.info("web_push_action", question_id=question_id, status=status)
        return _json({"accepted": reply.accepted, "ended": reply.ended,
                      "message": reply.text or ""}, status)
