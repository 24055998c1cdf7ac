"""Approvals in a Matrix room against a real Synapse: a poll Approve · Reject · Allow for 1 h;
a Reject vote asks for the reason by reply; a stranger's vote counts for nothing; the prompt is
edited to say who decided."""

from __future__ import annotations

from tests.adapters.matrix.support import (
    DEPLOY,
    POLL_START,
    Mx,
    approval_result,
    delivered,
    request_approval,
    seen,
)
from tests.harness import AGENT_TOKEN, running

TEXT = "org.matrix.msc1767.text"


async def _edited(mx: Mx, event_id: str) -> str:
    async def edit() -> str | None:
        found = [e["content"]["m.new_content"]["body"] for e in await mx.person.events(mx.room)
                 if e["content"].get("m.relates_to", {}).get("rel_type") == "m.replace"
                 and e["content"]["m.relates_to"]["event_id"] == event_id]
        return found[0] if found else None
    return str(await seen(edit))


async def test_a_reject_vote_asks_for_the_reason_and_a_reply_gives_it(mx: Mx) -> None:
    async with running(mx.config(), mx.env) as r:
        approval_id = await request_approval(r)
        await delivered(r, approval_id)
        text, polls = await mx.prompt_events(approval_id)
        assert '"env": "production"' in text["content"]["body"]
        answers = polls[0]["content"][POLL_START]["answers"]
        assert [a[TEXT] for a in answers] == ["Approve", "Reject", "Allow for 1 h"]

        stranger = await mx.stranger.vote(mx.room, polls[0]["event_id"], answers[0]["id"])
        vote = await mx.person.vote(mx.room, polls[0]["event_id"], answers[1]["id"])
        told = await seen(lambda: mx.notices(vote))
        assert told == ['Say why: reply "reject <reason>".']
        async with r.http() as http:
            found = (await http.get(f"/v1/approvals/{approval_id}", headers={
                "authorization": f"Bearer {AGENT_TOKEN}"})).json()
        assert found["status"] == "pending" and found["votes"] == [], stranger

        await mx.person.say(mx.room, "reject not on a Friday", reply_to=text["event_id"])
        result = await approval_result(r, approval_id)
        assert result["status"] == "rejected" and result["reason"] == "not on a Friday"
        edited = await _edited(mx, text["event_id"])
        assert "Rejected by" in edited and edited.endswith(": not on a Friday")


async def test_an_approve_vote_decides_and_the_prompt_says_who(mx: Mx) -> None:
    async with running(mx.config(), mx.env) as r:
        approval_id = await request_approval(r)
        await delivered(r, approval_id)
        text, polls = await mx.prompt_events(approval_id)
        answers = polls[0]["content"][POLL_START]["answers"]
        await mx.person.vote(mx.room, polls[0]["event_id"], answers[0]["id"])
        result = await approval_result(r, approval_id)
        assert result["status"] == "approved" and result["arguments"] == DEPLOY["arguments"]
        assert result["decidedBy"] == [{"surface": mx.surface, "user": mx.person.id}]
        assert "Approved by" in await _edited(mx, text["event_id"])
