"""The webhook text channel: prompts POSTed signed to a gateway, replies taken at /v1/channels/webhook."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

import httpx
import structlog
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from adapters.webhook import render
from adapters.webhook.config import WebhookChannelConfig
from adapters.webhook.freshness import (
    TIMESTAMP_HEADER,
    TIMESTAMPED_HEADER,
    Freshness,
    timestamp_headers,
)
from adapters.webhook.ids import message_ref, target_of
from adapters.webhook.inbound import InboundText, event_from
from bridge import (
    SIGNATURE_HEADER,
    BadJson,
    Capabilities,
    Delivery,
    DeliveryError,
    Finalization,
    InboundSink,
    MessageRef,
    Prompt,
    Queries,
    Reminder,
    SurfaceId,
    UnsupportedMedia,
    backoff,
    client_tls,
    count_rate_limited,
    declared_json,
    parse_json,
    sign,
    verify_signature,
)
from bridge.http import error_response

log = structlog.get_logger("askbridge.webhook")
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


def _error(status: int, code: str, msg: str, loc: str = "body") -> JSONResponse:
    return error_response(status, msg, loc, code=code)


class WebhookAdapter:
    platform = "webhook"

    def __init__(self, channels: dict[str, WebhookChannelConfig], secrets: dict[str, str],
                 transport: httpx.AsyncBaseTransport | None = None,
                 web_url: str | None = None) -> None:
        self.channels = channels
        self.web_url = web_url
        self.secrets = secrets
        self._sink: InboundSink | None = None
        self._fresh = {name: Freshness(c.replay_window_seconds, c.require_timestamp)
                       for name, c in channels.items()}
        # Every connection it opens is kept for reuse (httpx keeps 20 of at most 100 by
        # default, so a burst of prompts would open and close connections by the dozen).
        self._http = httpx.AsyncClient(
            transport=transport, trust_env=False, verify=client_tls(),
            limits=httpx.Limits(max_connections=100, max_keepalive_connections=100))

    def capabilities(self, surface: SurfaceId) -> Capabilities:
        channel = self.channels.get(target_of(surface)[0])
        return Capabilities(reply_to=True, max_len=channel.max_len if channel else 4000,
                            locale=channel.locale if channel else None)

    def routes(self) -> Sequence[BaseRoute]:
        return [Route("/v1/channels/webhook/{name}", self._inbound, methods=["POST"])]

    async def start(self, sink: InboundSink, queries: Queries) -> None:
        self._sink = sink

    async def stop(self) -> None:
        await self._http.aclose()

    async def deliver(self, surface: SurfaceId, prompt: Prompt) -> MessageRef | None:
        name, conversation = target_of(surface)
        if name not in self.channels or not conversation:
            raise DeliveryError(f"no webhook channel {name!r} is configured for {surface}")
        link = render.web_link(self.web_url, prompt) if self.web_url else None
        await self._send(name, conversation,
                         render.prompt(conversation, prompt, self.channels[name].max_len), link)
        return message_ref(prompt.question_id)

    async def remind(self, delivery: Delivery, reminder: Reminder) -> MessageRef | None:
        """POST `kind: "reminder"`; a reply carries the same `replyTo` (the question id)."""
        name, conversation = target_of(delivery.surface)
        await self._send(name, conversation,
                         render.reminder(conversation, reminder, self.channels[name].max_len))
        return None

    async def finalize(self, delivery: Delivery, final: Finalization) -> None:
        name, conversation = target_of(delivery.surface)
        await self._send(name, conversation,
                         render.final(conversation, final, self.channels[name].max_len))

    async def _send(self, name: str, conversation: str, payloads: list[render.Payload],
                    link: str | None = None) -> None:
        """Each part in order; a part the gateway refuses stops the rest (DeliveryError).
        `link` (the question in the web UI) is shown on the console, never posted."""
        for payload in payloads:
            await self._send_one(name, conversation, payload, link)

    async def _send_one(self, name: str, conversation: str, payload: render.Payload,
                        link: str | None = None) -> None:
        channel = self.channels[name]
        if channel.url is None:
            sys.stdout.write(render.console_block(conversation, payload, link))
            sys.stdout.flush()
            return
        body = json.dumps(payload).encode()
        headers = {"content-type": "application/json",
                   SIGNATURE_HEADER: sign(self.secrets[name], body),
                   **timestamp_headers(self.secrets[name], body)}
        problem, retry = await self._post(channel, body, headers)
        retries = backoff(0.5, 4.0, tries=channel.attempts - 1)
        while retry and await anext(retries, None) is not None:
            problem, retry = await self._post(channel, body, headers)
        if problem is None:
            return
        log.warning("webhook_send_failed", channel=name, kind=payload["kind"], error=problem)
        raise DeliveryError(problem)

    async def _post(self, channel: WebhookChannelConfig, body: bytes,
                    headers: dict[str, str]) -> tuple[str | None, bool]:
        """One POST to the gateway: what went wrong (None when taken), and whether to retry."""
        assert channel.url is not None
        try:
            response = await self._http.post(channel.url, content=body, headers=headers,
                                             timeout=channel.timeout_seconds)
        except httpx.HTTPError as exc:
            return f"the gateway could not be reached ({type(exc).__name__})", True
        if response.status_code < 300:
            return None, False
        if response.status_code == 429:
            count_rate_limited("webhook")
        return (f"the gateway answered HTTP {response.status_code}",
                response.status_code in RETRY_STATUSES)

    async def _inbound(self, request: Request) -> JSONResponse:
        name = request.path_params["name"]
        channel = self.channels.get(name)
        if channel is None:
            return _error(404, "not_found", f"There is no webhook channel {name!r}.", "path")
        body = await request.body()
        if not verify_signature(self.secrets[name], body, request.headers.get(SIGNATURE_HEADER)):
            log.warning("webhook_signature_refused", channel=name)
            return _error(401, "bad_signature", f"Sign the body with the channel secret: "
                          f"{SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256 of the body>.", "header")
        stale = self._fresh[name].problem(self.secrets[name], body,
                                          request.headers.get(TIMESTAMP_HEADER),
                                          request.headers.get(TIMESTAMPED_HEADER))
        if stale is not None:
            log.warning("webhook_replay_refused", channel=name)
            return _error(401, "stale_or_replayed", stale, "header")
        try:
            declared_json(request.headers.get("content-type"))
        except UnsupportedMedia as exc:
            return _error(exc.status, exc.code, str(exc), exc.loc)
        try:
            message = InboundText.model_validate(parse_json(body))
        except BadJson as exc:  # unreadable, or text with a NUL or a lone surrogate: by field
            return error_response(422, details=[p.model_dump() for p in exc.problems])
        except ValidationError as exc:
            return error_response(422, details=[
                {"loc": ".".join(str(p) for p in e["loc"]) or "body", "msg": e["msg"]}
                for e in exc.errors()])
        if self._sink is None:
            return _error(503, "starting", "askbridge is starting; try again in a moment.")
        reply = await self._sink.text_received(event_from(name, message, channel.answerers))
        return JSONResponse({"accepted": reply.accepted, "reply": reply.text or ""})
