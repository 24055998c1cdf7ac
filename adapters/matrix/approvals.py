"""Approvals in Matrix beyond the poll: a plain reply to our "Say why" notice is the rejection's
reason, and `edit` (`ubah`) answers with the sender's signed link to the web card. Whoever holds
that link decides as them, so it is posted only where no one else reads it: in the room when
only the sender and the bot are in it, else in a direct chat the bot opens with the sender."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from adapters.matrix.client import MatrixClient
from adapters.matrix.ids import surface_for
from bridge import N_, AdapterState, Queries, QuestionId, SurfaceId, UserRef, tr

log = structlog.get_logger("askbridge.matrix")
REASON = "reason"
"""A notice's `asks`: a plain reply to it is a rejection's reason."""
EDIT_WORDS = frozenset({"edit", "ubah", "/edit"})
_NEED_REASON = N_('Say why: reply "reject <reason>".')
"""The core's words for a Reject without a reason (a vote, or `reject` alone)."""
DIRECT = "direct:"
"""Adapter state: `direct:<user>` → the direct chat the bot opened with them."""
Notice = Callable[[str, str, str | None, QuestionId | None], Awaitable[None]]
"""(room, text, in reply to, question): how the syncer tells someone something."""


def asks_reason(text: str | None, locale: str) -> bool:
    """Whether what the core told the person asks them for a rejection's reason."""
    return text is not None and text == tr(locale, _NEED_REASON)


def as_reason(text: str) -> str:
    """A plain reply to our reason request, as the rejection the core reads."""
    return f"reject {text.strip()}"


def is_edit(text: str) -> bool:
    return text.strip().casefold().rstrip(".!") in EDIT_WORDS


async def pending_approval(queries: Queries, surface: SurfaceId,
                           reply_to: QuestionId | None) -> QuestionId | None:
    """The approval `edit` is about: the one replied to, else the only one pending here."""
    if reply_to is not None:
        view = await queries.approval_view(reply_to)
        return reply_to if view is not None and view.get("status") == "pending" else None
    here: list[dict[str, Any]] = [v for v in await queries.pending_views()
                                  if surface in v.get("surfaces", [])]
    found = [QuestionId(v["id"]) for v in here if await queries.approval_view(v["id"])]
    return found[0] if len(found) == 1 else None


def link_text(locale: str, url: str) -> str:
    return tr(locale, "Edit the arguments on the web: {url}\nThis link is yours alone: whoever "
              "opens it decides as you, until the approval ends.", url=url)


class EditLinks:
    """`edit` in a room: the sender's link, sent where only they read it."""

    def __init__(self, client: MatrixClient, queries: Queries, state: AdapterState,
                 notice: Notice) -> None:
        self.client, self.queries, self.state, self.notice = client, queries, state, notice

    async def answer(self, room_id: str, sender: str, event_id: str,
                     reply_to: QuestionId | None, fallback_locale: str) -> bool:
        """Answer `edit`; False when no approval here is pending (the core answers then)."""
        surface = surface_for(room_id)
        approval_id = await pending_approval(self.queries, surface, reply_to)
        if approval_id is None:
            return False
        prompt = await self.queries.prompt_for(approval_id, surface)
        locale = prompt.locale if prompt is not None else fallback_locale
        url = await self.queries.card_link(approval_id, surface, UserRef(sender))
        if url is None:
            await self.notice(room_id, tr(locale, "Editing is not available here; edit the "
                                          "approval in askbridge's web UI, or approve or reject "
                                          "it as it is."), event_id, approval_id)
            return True
        if await self.client.members(room_id) == {self.client.user_id, sender}:
            await self.notice(room_id, link_text(locale, url), event_id, approval_id)
            return True
        direct = await self._direct(sender)
        if direct is not None:
            await self.notice(direct, link_text(locale, url), None, None)
        log.info("matrix_edit_link", question_id=approval_id, surface=surface,
                 direct=direct is not None)
        await self.notice(room_id, tr(
            locale, "I sent your edit link to a direct chat with you (accept my invitation if "
            "you have not). Only you can use it.") if direct is not None else tr(
            locale, "Others can read this room, so I will not post your edit link here "
            "(whoever opens it decides as you). Edit the approval in askbridge's web UI "
            "instead, or approve or reject it here."), event_id, approval_id)
        return True

    async def _direct(self, user: str) -> str | None:
        """The direct chat with `user`: the one opened before while they are in it (or still
        invited) and no one else is, else a new one."""
        kept = await self.state.get(f"{DIRECT}{user}")
        if kept is not None:
            members = await self.client.members(kept)
            if (members is not None and members <= {self.client.user_id, user}
                    and await self.client.membership(kept, user) in ("join", "invite")):
                return kept
        made = await self.client.direct_room(user)
        if made is not None:
            await self.state.put(f"{DIRECT}{user}", made)
        return made
