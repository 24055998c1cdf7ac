"""Reject and Edit of an approval in Matrix against a real Synapse: a plain reply to the bridge's
"Say why" notice is the reason (after a Reject vote, or after `reject` alone); `edit` / `ubah`
answers with the sender's signed link to the web card, but only in a room of the sender and the
bot; from a shared room, in a direct chat the bot opens with the sender — never where others
read it."""

from __future__ import annotations

import json
import secrets
from typing import Any
from urllib.parse import quote

from tests.adapters.matrix.support import (
    POLL_START,
    Mx,
    approval_result,
    delivered,
    make_room,
    request_approval,
    seen,
)
from tests.harness import AGENT_TOKEN, Running, running

NEED_REASON = 'Say why: reply "reject <reason>".'


async def _notices(mx: Mx, room: str, reply_to: str) -> list[dict[str, Any]]:
    return [e for e in await mx.person.events(room)
            if e["sender"] == mx.bot.id and e["content"].get("msgtype") == "m.notice"
            and e["content"].get("m.relates_to", {}).get("m.in_reply_to", {})
            .get("event_id") == reply_to]


async def _status(r: Running, approval_id: str) -> str:
    async with r.http() as http:
        found = (await http.get(f"/v1/approvals/{approval_id}", headers={
            "authorization": f"Bearer {AGENT_TOKEN}"})).json()
    return str(found["status"])


async def test_a_plain_reply_to_the_reason_request_after_a_reject_vote_is_the_reason(
        mx: Mx) -> None:
    async with running(mx.config(), mx.env) as r:
        approval_id = await request_approval(r)
        await delivered(r, approval_id)
        _, polls = await mx.prompt_events(approval_id)
        answers = polls[0]["content"][POLL_START]["answers"]
        vote = await mx.person.vote(mx.room, polls[0]["event_id"], answers[1]["id"])
        asked = (await seen(lambda: _notices(mx, mx.room, vote)))[0]
        assert asked["content"]["body"] == NEED_REASON
        await mx.person.say(mx.room, "not on a Friday", reply_to=asked["event_id"])
        result = await approval_result(r, approval_id)
        assert result["status"] == "rejected" and result["reason"] == "not on a Friday"


async def test_reject_alone_then_a_reply_to_the_request_gives_the_reason(mx: Mx) -> None:
    async with running(mx.config(), mx.env) as r:
        approval_id = await request_approval(r)
        await delivered(r, approval_id)
        text, _ = await mx.prompt_events(approval_id)
        said = await mx.person.say(mx.room, "tolak", reply_to=text["event_id"])
        asked = (await seen(lambda: _notices(mx, mx.room, said)))[0]
        assert asked["content"]["body"] == NEED_REASON
        # a stranger's reply to the request decides nothing
        await mx.stranger.say(mx.room, "whatever", reply_to=asked["event_id"])
        await mx.person.say(mx.room, "the freeze is on", reply_to=asked["event_id"])
        result = await approval_result(r, approval_id)
        assert result["status"] == "rejected" and result["reason"] == "the freeze is on"
        assert result["decidedBy"] == [{"surface": mx.surface, "user": mx.person.id}]


async def _invited_to(mx: Mx) -> list[str]:
    """Rooms the person is invited to (not yet joined). The filter is new each time: Synapse
    answers a repeated /sync from its cache."""
    fresh = json.dumps({"presence": {"not_types": [secrets.token_hex(4)]}})
    synced = await mx.person.call("GET", f"/sync?timeout=0&filter={quote(fresh)}")
    return list(synced.get("rooms", {}).get("invite", {}))


async def _link_in(mx: Mx, r: Running, room: str) -> tuple[str, str, str]:
    """Whom the bot's newest link in `room` is for: (question, surface, user)."""
    async def links() -> list[str]:
        return [w for e in await mx.person.events(room) if e["sender"] == mx.bot.id
                for w in str(e["content"].get("body", "")).split() if "/l/" in w]
    url = (await seen(links))[-1]
    checker = r.bridge.reads.links
    assert checker is not None
    held = await checker.check(url.rsplit("/l/", 1)[1])
    assert held is not None, url
    return held.question_id, held.surface, held.user


async def test_edit_in_a_shared_room_sends_the_link_to_a_direct_chat_only(mx: Mx) -> None:
    async with running(mx.config(), mx.env) as r:
        approval_id = await request_approval(r)
        await delivered(r, approval_id)
        text, _ = await mx.prompt_events(approval_id)
        before = set(await _invited_to(mx))
        said = await mx.person.say(mx.room, "ubah", reply_to=text["event_id"])
        told = (await seen(lambda: _notices(mx, mx.room, said)))[0]["content"]["body"]
        assert "direct chat" in told and "/l/" not in told, told
        async def new_invites() -> list[str]:
            return [i for i in await _invited_to(mx) if i not in before]
        direct = (await seen(new_invites))[0]
        await mx.person.join(direct)
        assert await _link_in(mx, r, direct) == (approval_id, mx.surface, mx.person.id)
        # asked again, the same direct chat is used; the shared room never holds a link
        said = await mx.person.say(mx.room, "edit", reply_to=text["event_id"])
        await seen(lambda: _notices(mx, mx.room, said))
        assert not [e for e in await mx.person.events(mx.room) if e["sender"] == mx.bot.id
                    and "/l/" in str(e["content"].get("body", ""))]
        assert set(await _invited_to(mx)) <= before
        assert await _status(r, approval_id) == "pending"


async def test_edit_in_a_room_of_two_answers_with_the_senders_signed_link(mx: Mx) -> None:
    room = await make_room(mx.person, mx.bot)
    surface = f"matrix:{room}"
    async with running(mx.config(surfaces=[surface]), mx.env) as r:
        approval_id = await request_approval(r)
        await delivered(r, approval_id)
        said = await mx.person.say(room, "edit")
        await seen(lambda: _notices(mx, room, said))
        assert await _link_in(mx, r, room) == (approval_id, surface, mx.person.id)
        assert await _status(r, approval_id) == "pending"
