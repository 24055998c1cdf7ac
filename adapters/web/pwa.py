"""The installable app and its push API: manifest, worker, VAPID key, subscriptions, actions."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import structlog
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from adapters.web.inbound import ActionBody, event_from
from adapters.web.push import Pusher, Subscription
from adapters.web.routes import SECURITY_HEADERS, Core, Handler, WebRoutes
from adapters.web.vapid import public_key, vapid_key
from bridge import (
    ApprovalDecided,
    BadJson,
    ButtonPressed,
    QuestionId,
    tr,
)
from bridge.http import error_response, read_json

log = structlog.get_logger("askbridge.web")
STATIC = Path(__file__).parent / "static"
THEME = "#3d5bd9"  # the UI's accent, as in the icons
BACKGROUND = "#f6f7fb"
Guard = Callable[[Callable[[Request, Core], Awaitable[Response]], bool], Handler]
"""The UI's own guard: session cookie; for changes also same origin and the CSRF header."""


class EndpointBody(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    endpoint: str = Field(min_length=1, max_length=2048)


def manifest(locale: str) -> dict[str, Any]:
    return {
        "name": "askbridge", "short_name": "askbridge", "id": "/", "start_url": "/", "scope": "/",
        "display": "standalone", "theme_color": THEME, "background_color": BACKGROUND,
        "description": tr(locale, "Answer your AI agents' questions, from any device."),
        "lang": locale,
        "icons": [{"src": f"/ui/static/icon-{n}.png", "sizes": f"{n}x{n}", "type": "image/png",
                   "purpose": "any"} for n in (192, 512)],
    }


Model = TypeVar("Model", bound=BaseModel)


def _json(body: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=SECURITY_HEADERS)


class PwaRoutes:
    """Routes of the installable app; the API ones behind the UI's own guard and language."""

    def __init__(self, pusher: Pusher, ui: WebRoutes) -> None:
        self.pusher = pusher
        self.guard: Guard = ui.guard
        self.locale_of = ui.locale_of
        self.worker = (STATIC / "sw.js").read_bytes()

    def _problem(self, request: Request, status: int, msg: str) -> JSONResponse:
        return error_response(status, tr(self.locale_of(request), msg), headers=SECURITY_HEADERS)

    @staticmethod
    async def _body(request: Request, model: type[Model]) -> Model | None:
        try:
            return model.model_validate(await read_json(request))
        except (BadJson, ValidationError):
            return None

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
        return Response(json.dumps(manifest(self.locale_of(request))),
                        media_type="application/manifest+json",
                        headers={**SECURITY_HEADERS, "cache-control": "no-cache"})

    async def service_worker(self, request: Request) -> Response:
        return Response(self.worker, media_type="text/javascript",
                        headers={**SECURITY_HEADERS, "cache-control": "no-cache",
                                 "service-worker-allowed": "/"})

    async def key(self, request: Request, core: Core) -> Response:
        return _json({"publicKey": public_key(await vapid_key(self.pusher.state))})

    async def subscribe(self, request: Request, core: Core) -> Response:
        sub = await self._body(request, Subscription)
        if sub is None:
            return self._problem(request, 422, "Send the browser's PushSubscription.toJSON(): "
                            '{"endpoint": "https://…", "keys": {"p256dh": "…", "auth": "…"}}.')
        await self.pusher.subscribe(sub)
        return _json({"subscribed": True}, 201)

    async def unsubscribe(self, request: Request, core: Core) -> Response:
        body = await self._body(request, EndpointBody)
        if body is None:
            return self._problem(request, 422, 'Send {"endpoint": "<the subscription\'s endpoint>"}.')
        forgotten = await self.pusher.unsubscribe(body.endpoint)
        log.info("push_unsubscribed", found=forgotten)
        return Response(status_code=204, headers=SECURITY_HEADERS)

    async def action(self, request: Request, core: Core) -> Response:
        """A notification's action button, sent by the service worker with the page's cookie."""
        question_id = QuestionId(request.path_params["question_id"])
        body = await self._body(request, ActionBody)
        event = event_from(question_id, body, "en") if body is not None else None
        if isinstance(event, ApprovalDecided):
            return await self._approve(request, core, event)
        if not isinstance(event, ButtonPressed):
            return self._problem(request, 422, 'Send {"action": "answer:<option number>"}.')
        view = await core.queries.question_view(question_id)
        if view is None:
            return self._problem(request, 404, "There is no such question.")
        questions = view["request"]["questions"]
        if "web" not in view["surfaces"] or len(questions) != 1 or questions[0].get("multiSelect"):
            return self._problem(request, 403, "This question cannot be answered from a notification; "
                            "open askbridge to answer it.")
        reply = await core.sink.button_pressed(event)
        status = 200 if reply.accepted else 409 if reply.ended else 422
        log.info("web_push_action", question_id=question_id, status=status)
        return _json({"accepted": reply.accepted, "ended": reply.ended,
                      "message": reply.text or ""}, status)

    async def _approve(self, request: Request, core: Core, event: ApprovalDecided) -> Response:
        """An approval notification's Approve, for the payload the notification showed."""
        view = await core.queries.approval_view(event.approval_id)
        if view is None or "web" not in view["surfaces"]:
            return self._problem(request, 404, "There is no such approval.")
        reply = await core.sink.approval_decided(event)
        status = 200 if reply.accepted else 409 if reply.ended else 422
        log.info("web_push_approve", approval_id=event.approval_id, status=status)
        return _json({"accepted": reply.accepted, "ended": reply.ended,
                      "message": reply.text or ""}, status)
