"""Slack approval buttons in (already acknowledged) and the Reject / Edit modal's submit."""

from __future__ import annotations

from typing import Any, Protocol

import structlog
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.approval import BLOCK, INPUT, modal, parse
from adapters.slack.calls import NETWORK, api_error
from adapters.slack.config import SlackConfig
from adapters.slack.ids import surface_for, target_of
from adapters.slack.inbound import may_answer
from bridge import (
    DEFAULT_LOCALE,
    ApprovalDecided,
    InboundSink,
    Queries,
    QuestionId,
    SurfaceId,
    UserRef,
    caption,
    parse_json,
    tr,
)

log = structlog.get_logger("askbridge.slack").bind(platform="slack")


class Host(Protocol):
    config: SlackConfig
    client: AsyncWebClient
    sink: InboundSink | None
    queries: Queries | None

    async def tell(self, channel: str, user: str, text: str, thread_ts: str | None) -> None: ...


class ApprovalTaps:
    """The approval buttons (already acknowledged) and the Reject / Edit modal's submit."""

    def __init__(self, adapter: Host) -> None:
        self.adapter = adapter

    async def on_action(self, body: dict[str, Any]) -> bool:
        """Handle an approval button; False when the body holds none."""
        actions = body.get("actions") if isinstance(body.get("actions"), list) else []
        found = next((p for a in actions or [] if isinstance(a, dict)
                      and (p := parse(str(a.get("action_id", ""))))), None)
        channel = (body.get("channel") or {}).get("id") if isinstance(body.get("channel"),
                                                                       dict) else None
        user = (body.get("user") or {}).get("id") if isinstance(body.get("user"), dict) else None
        if found is None or not channel or not user or self.adapter.sink is None:
            return found is not None
        question_id, kind, fingerprint = found
        message = body.get("message") if isinstance(body.get("message"), dict) else {}
        thread = (message or {}).get("thread_ts")
        surface = surface_for(channel, thread)
        queries = self.adapter.queries
        prompt = await queries.prompt_for(question_id, surface) if queries else None
        locale = prompt.locale if prompt else None  # ended: the core answers in the surface's
        if kind in ("reject", "edit") and prompt is not None and body.get("trigger_id"):
            try:
                await self.adapter.client.views_open(
                    trigger_id=str(body["trigger_id"]),
                    view=modal(kind, prompt, surface, fingerprint))
                return True
            except NETWORK as exc:
                log.info("slack_modal_unavailable", error=api_error(exc))
        if kind in ("reject", "edit"):  # no modal: a thread reply decides as well
            words = locale or DEFAULT_LOCALE
            told = (tr(words, "This approval has already been decided.") if prompt is None else
                    tr(words, 'Reply in this message\'s thread with "reject <reason>".'))
            await self.adapter.tell(channel, user, told, thread)
            return True
        reply = await self.adapter.sink.approval_decided(ApprovalDecided(
            surface, UserRef(user), question_id, "allow" if kind == "allow" else "approve",
            may_answer(user, channel, self.adapter.config.answerers), payload_hash=fingerprint,
            locale=locale))
        log.info("slack_approval", question_id=question_id, kind=kind, accepted=reply.accepted)
        if reply.text and not (reply.accepted and reply.ended):
            await self.adapter.tell(channel, user, reply.text, thread)
        return True

    async def on_submit(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        """The modal's reason or arguments as the decision; a refusal stays in the modal."""
        view, user = body.get("view") or {}, (body.get("user") or {}).get("id", "")
        try:
            meta = parse_json(view.get("private_metadata") or "")
            question_id, surface = QuestionId(str(meta["q"])), SurfaceId(str(meta["s"]))
            kind, fingerprint = str(meta["k"]), str(meta["f"])
            text = str(view["state"]["values"][BLOCK][INPUT]["value"] or "").strip()
        except (ValueError, KeyError, TypeError):
            await ack()
            return
        queries, sink = self.adapter.queries, self.adapter.sink
        prompt = await queries.prompt_for(question_id, surface) if queries else None
        locale = prompt.locale if prompt else None
        words = locale or DEFAULT_LOCALE
        extra: dict[str, Any] = {"reason": text}
        if kind == "edit":
            try:
                extra = {"arguments": parse_json(text)}
            except ValueError as exc:
                await ack(response_action="errors", errors={BLOCK: caption(tr(
                    words, "That is not valid JSON ({error}).", error=str(exc)), 150)})
                return
            if not isinstance(extra["arguments"], dict):
                await ack(response_action="errors", errors={BLOCK: tr(
                    words, "The arguments must be a JSON object.")})
                return
        channel, thread = target_of(surface)
        assert sink is not None
        reply = await sink.approval_decided(ApprovalDecided(
            surface, UserRef(str(user)), question_id, "reject" if kind == "reject" else "approve",
            may_answer(str(user), channel, self.adapter.config.answerers),
            payload_hash=fingerprint, locale=locale, **extra))
        log.info("slack_approval_modal", question_id=question_id, kind=kind,
                 accepted=reply.accepted)
        if not reply.accepted and not reply.ended and reply.text:
            await ack(response_action="errors", errors={BLOCK: caption(reply.text, 150)})
            return
        await ack()
        if reply.text and not (reply.accepted and reply.ended):
            await self.adapter.tell(channel, str(user), reply.text, thread)
