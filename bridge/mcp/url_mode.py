"""URL-mode elicitation: a host that can open a link but cannot show a form (it declared
`elicitation: {url: {}}` without `form`) is offered the question's signed answer page
(`/l/{token}`), made for the one identity the host form answers as (surface `mcp`, user
`host`), so an answer there is the host's own answer.

The link races the remote surfaces just as the form does: whichever answers first wins, and
the page says "already ended" once a remote answer came first. The host's reply to a URL
elicitation only says whether the person agreed to open the link (MCP: URL mode carries no
content), so no reply is an answer: `accept` and `decline` both leave the question waiting,
and a Skip is made on the page itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import mcp.types as mt
import structlog

from bridge.core.card_links import CardLinks
from bridge.model.ids import SurfaceId, UserRef
from bridge.store.records import QuestionRecord
from bridge.text.i18n import tr

log = structlog.get_logger("askbridge.mcp")
URL_KEY = "answer_link"
"""The `input_requests` key of the 2026-07-28 URL round."""
HOST_USER = UserRef("host")
ElicitUrl = Callable[[str, str, str], Awaitable[mt.ElicitResult]]
"""2025-11-25: send the host `elicitation/create` in URL mode (message, url, elicitation id)."""


def url_capable(caps: mt.ClientCapabilities | None) -> bool:
    """Whether the host declared URL-mode elicitation."""
    found = caps.elicitation if caps is not None else None
    return found is not None and found.url is not None


def message(record: QuestionRecord, locale: str) -> str:
    lines = [f"{q.header}: {q.question}" for q in record.request.questions]
    return "\n".join([tr(locale, "Open this page to answer:"), *lines])


async def link(links: CardLinks, record: QuestionRecord, surface: SurfaceId) -> str:
    return await links.url(record.id, surface, HOST_USER)


async def offer(links: CardLinks, record: QuestionRecord, surface: SurfaceId, locale: str,
                elicit_url: ElicitUrl) -> None:
    """2025-11-25: ask the host to open the link, once; what it replies changes nothing."""
    url = await link(links, record, surface)
    try:
        result = await elicit_url(message(record, locale), url, str(record.id))
    except Exception as exc:  # the host cannot open it: the remote surfaces go on
        log.info("mcp_url_elicitation_failed", question_id=record.id, error=str(exc))
        return
    log.info("mcp_url_elicitation", question_id=record.id, action=result.action)


async def url_round(links: CardLinks, record: QuestionRecord, surface: SurfaceId, locale: str,
                    responses: dict[str, object] | None, state: str | None
                    ) -> tuple[str, str] | None:
    """2026-07-28: the (message, link) to answer `input_required` with; None once the retry
    brings the host's reply to it (then the call waits for the end)."""
    if responses and URL_KEY in responses and state == str(record.id):
        log.info("mcp_url_elicitation", question_id=record.id,
                 action=str(getattr(responses[URL_KEY], "action", "")))
        return None
    return message(record, locale), await link(links, record, surface)
