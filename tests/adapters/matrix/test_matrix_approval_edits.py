"""An edit under quorum in a Matrix room against a real Synapse: the prompt is shown again with
the new arguments, and a reply or vote on the prompt the edit replaced (which shows the old
arguments) is refused as stale, as a button carrying the old fingerprint is; the new prompt
counts."""

from __future__ import annotations

from typing import Any

from bridge import ApprovalDecided, QuestionId, SurfaceId, UserRef, payload_hash
from tests.adapters.matrix.support import (
    DEPLOY,
    MARK,
    POLL_START,
    Mx,
    approval_result,
    delivered,
    request_approval,
    seen,
)
from tests.harness import AGENT_TOKEN, Running, make_config, running

EDITED = {"env": "staging"}
SHOWN = "net.askbridge.payload"


def _config(mx: Mx) -> Any:
    people = [{"name": "ana", "matrix": [mx.person.id]}, {"name": "budi", "matrix": [mx.stranger.id]}]
    return make_config(mx.tmp, surfaces=[mx.surface], matrix=mx.section(), people=people,
                       approvals=[{"approvers": ["ana", "budi"], "required": 2}])


async def _edited_by_budi(r: Running, mx: Mx, approval_id: str, shown: str) -> None:
    told = await r.bridge.receiver.approval_decided(ApprovalDecided(
        SurfaceId(mx.surface), UserRef(mx.stranger.id), QuestionId(approval_id), "approve",
        authorized=False, arguments=EDITED, payload_hash=shown))
    assert told.accepted and "new arguments" in (told.text or ""), told


async def _shown_again(mx: Mx, approval_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The prompt text and poll showing the edited arguments."""
    async def again() -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        events = [e for e in await mx.person.events(mx.room) if e["sender"] == mx.bot.id
                  and e["content"].get(MARK) == approval_id
                  and e["content"].get(SHOWN) == payload_hash(EDITED)
                  and "m.relates_to" not in e["content"]]
        texts = [e for e in events if e["type"] == "m.room.message"]
        polls = [e for e in events if e["type"] == POLL_START]
        return (texts[0], polls) if texts and polls else None
    found: tuple[dict[str, Any], list[dict[str, Any]]] = await seen(again)
    return found


async def _votes(r: Running, approval_id: str) -> list[dict[str, Any]]:
    async with r.http() as http:
        found = (await http.get(f"/v1/approvals/{approval_id}", headers={
            "authorization": f"Bearer {AGENT_TOKEN}"})).json()
    assert found["status"] == "pending"
    return list(found["votes"])


async def test_a_reply_or_vote_on_the_replaced_prompt_is_refused_as_stale(mx: Mx) -> None:
    async with running(_config(mx), mx.env) as r:
        approval_id = await request_approval(r)
        await delivered(r, approval_id)
        old_text, old_polls = await mx.prompt_events(approval_id)
        assert old_text["content"][SHOWN] == payload_hash(DEPLOY["arguments"])
        await _edited_by_budi(r, mx, approval_id, old_text["content"][SHOWN])
        new_text, new_polls = await _shown_again(mx, approval_id)
        assert '"env": "staging"' in new_text["content"]["body"]

        said = await mx.person.say(mx.room, "approve", reply_to=old_text["event_id"])
        told = await seen(lambda: mx.notices(said))
        assert "changed by an edit" in told[0], told
        answers = old_polls[0]["content"][POLL_START]["answers"]
        vote = await mx.person.vote(mx.room, old_polls[0]["event_id"], answers[0]["id"])
        told = await seen(lambda: mx.notices(vote))
        assert "changed by an edit" in told[0], told
        assert [v["user"] for v in await _votes(r, approval_id)] == [mx.stranger.id]

        await mx.person.say(mx.room, "approve", reply_to=new_text["event_id"])
        result = await approval_result(r, approval_id)
        assert result["status"] == "approved" and result["arguments"] == EDITED
        assert len(new_polls) == 1


async def test_a_reason_asked_on_the_replaced_prompt_rejects_nothing_new(mx: Mx) -> None:
    """`reject` alone on the old prompt asks Say why; after the edit, the reason replying to
    that request is about the old arguments: stale, not a rejection of the new ones."""
    async with running(_config(mx), mx.env) as r:
        approval_id = await request_approval(r)
        await delivered(r, approval_id)
        old_text, _ = await mx.prompt_events(approval_id)
        said = await mx.person.say(mx.room, "reject", reply_to=old_text["event_id"])
        await seen(lambda: mx.notices(said))
        asked = next(e for e in await mx.person.events(mx.room) if e["sender"] == mx.bot.id
                 and e["content"].get("m.relates_to", {}).get("m.in_reply_to", {})
                 .get("event_id") == said)
        await _edited_by_budi(r, mx, approval_id, old_text["content"][SHOWN])
        await _shown_again(mx, approval_id)
        reason = await mx.person.say(mx.room, "not on a Friday", reply_to=asked["event_id"])
        told = await seen(lambda: mx.notices(reason))
        assert "changed by an edit" in told[0], told
        assert [v["user"] for v in await _votes(r, approval_id)] == [mx.stranger.id]
