"""Slack's HTTP mode: events and interactivity POSTed to /slack/events, checked, then Bolt's."""

from __future__ import annotations

from collections.abc import Sequence

import structlog
from slack_bolt.adapter.starlette.async_handler import (
    AsyncSlackRequestHandler,
    to_starlette_response,
)
from slack_bolt.async_app import AsyncApp, AsyncBoltRequest
from starlette.requests import Request
from starlette.responses import Response

from adapters.slack.inbound import well_formed
from bridge.http import error_response

log = structlog.get_logger("askbridge.slack").bind(platform="slack")
EVENTS_PATH = "/slack/events"
SIGNATURE = "x-slack-signature"


class EventsRoute:
    """The route's handler: a body that is not a Slack payload, or one Bolt's handlers would
    trip over, is a 400; a signature is always checked by Bolt, a non-ASCII one included."""

    def __init__(self, app: AsyncApp) -> None:
        self.app = app
        self._http = AsyncSlackRequestHandler(app)

    async def __call__(self, request: Request) -> Response:
        if not well_formed(await request.body(), request.headers.get("content-type")):
            return error_response(400, "Expected a Slack event or interaction payload.",
                                  code="invalid_request")
        try:
            if not request.headers.get(SIGNATURE, "").isascii():
                return await self._refused_signature(request)
            return await self._http.handle(request)
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
            # Bolt assumes well-shaped fields (`event` an object, `user` an object …); a signed
            # but malformed request must be refused, not crash the request as a 500.
            log.warning("slack_payload_malformed", error=type(exc).__name__)
            return error_response(400, "Malformed Slack payload.", code="invalid_request")

    async def _refused_signature(self, request: Request) -> Response:
        """slack_sdk compares signatures as str, which raises on a non-ASCII one: hand Bolt a
        signature that is wrong in ASCII instead, so it refuses this one exactly as any other."""
        headers: dict[str, str | Sequence[str]] = {**request.headers, SIGNATURE: "v0=" + "0" * 64}
        bolt = AsyncBoltRequest(body=(await request.body()).decode("utf-8", "replace"),
                                query=str(request.query_params), headers=headers)
        return to_starlette_response(await self.app.async_dispatch(bolt))
