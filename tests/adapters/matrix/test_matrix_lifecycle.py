"""Matrix lifecycle against a real Synapse: restarts, invites, reminders, rate limits, doctor."""

from __future__ import annotations

import asyncio
import logging
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote, unquote

import pytest
from structlog.testing import capture_logs

from adapters.matrix import create
from bridge import (
    AdapterContext,
    AgentName,
    Delivery,
    DeliveryError,
    Finalization,
    Prompt,
    PromptQuestion,
    QuestionId,
    Reminder,
    Reminding,
    SessionKey,
    SurfaceId,
)
from bridge.core.surfaces import asked
from bridge.runtime.tally import TALLY
from bridge.text.rendering import build_prompt
from tests.adapters.matrix.held import HeldCalls
from tests.adapters.matrix.support import (
    POLL_END,
    POLL_START,
    Mx,
    Person,
    delivered,
    make_room,
    seen,
)
from tests.harness import running, until
from tests.samples import DEPLOY


async def test_restart_between_ask_and_answer_resumes_without_replaying(mx: Mx) -> None:
    config = mx.config()
    async with running(config, mx.env) as r, r.client() as client:
        first = (await client.create(DEPLOY))["id"]
        await delivered(r, first)
        await mx.person.say(mx.room, "2")
        assert (await client.result(first, wait=15)) is not None
        second = (await client.create(DEPLOY))["id"]
        await delivered(r, second)
        position = await r.bridge.store.state_get("matrix", "next_batch")
        assert position, "the sync position is kept in the store"

    _, polls = await mx.prompt_events(second)
    await mx.person.vote(mx.room, polls[0]["event_id"], "3")  # while askbridge is down

    async with running(config, mx.env) as r, r.client() as client:
        result = await client.result(second, wait=20)
        # had the old "2" been replayed as new, it would have answered this one first
        assert result is not None and result.answer_map() == {"deploy_target": ["Canary"]}


async def _membership(person: Person, room: str, user: str) -> str | None:
    async with person.http() as http:
        got = await http.get(f"/_matrix/client/v3/rooms/{quote(room)}/state/m.room.member/"
                             f"{quote(user)}")
    return str(got.json().get("membership")) if got.status_code == 200 else None


async def test_the_bot_accepts_invites_from_answerers_only(mx: Mx) -> None:
    async with running(mx.config(), mx.env) as r:
        await until(lambda: r.bridge.store.state_get("matrix", "next_batch"))
        theirs = (await mx.stranger.call("POST", "/createRoom", {
            "preset": "private_chat", "invite": [mx.bot.id]}))["room_id"]
        ours = (await mx.person.call("POST", "/createRoom", {
            "preset": "private_chat", "invite": [mx.bot.id]}))["room_id"]
        await seen(lambda: _is_joined(mx.person, ours, mx.bot.id))
        assert await _membership(mx.stranger, theirs, mx.bot.id) == "invite"


async def _is_joined(person: Person, room: str, user: str) -> bool:
    return await _membership(person, room, user) == "join"


async def test_a_reminder_replies_to_the_prompt_and_a_reply_to_it_answers(mx: Mx) -> None:
    async with running(mx.config(), mx.env) as r, r.client() as client:
        qid = (await client.create(DEPLOY))["id"]
        row = await delivered(r, qid)
        record = await r.bridge.store.get_question(qid)
        assert record is not None
        prompt = build_prompt(asked(record), True)
        text = "Reminder: Deploy — still waiting for your answer; expires in 14 min"
        adapter = r.bridge.adapters["matrix"]
        assert isinstance(adapter, Reminding)
        ref = await adapter.remind(Delivery(qid, row.surface, row.message_ref),
                                   Reminder(prompt, text, 1))
        assert ref is not None
        shown, _ = await mx.prompt_events(qid)
        reminders = [e for e in await mx.person.events(mx.room) if e["event_id"] == ref]
        assert reminders[0]["content"]["body"] == text
        assert reminders[0]["content"]["m.relates_to"]["m.in_reply_to"]["event_id"] == \
            shown["event_id"]
        await mx.person.say(mx.room, "production", reply_to=ref)
        result = await client.result(qid, wait=15)
        assert result is not None and result.answer_map() == {"deploy_target": ["Production"]}


async def test_rate_limits_are_waited_out_as_the_homeserver_asks(
        mx: Mx, caplog: pytest.LogCaptureFixture) -> None:
    slow = Person(mx.hs, mx.hs.users.get("slowbot") or mx.hs.register("slowbot"))
    admin = Person(mx.hs, mx.hs.users["admin"])
    async with admin.http() as http:
        got = await http.post(f"/_synapse/admin/v1/users/{quote(slow.id)}/override_ratelimit",
                              json={"messages_per_second": 1, "burst_count": 1})
        got.raise_for_status()
    room = await make_room(mx.person, slow)
    mx = Mx(mx.hs, mx.tmp, slow, mx.person, mx.stranger, room, mx.hs.login("slowbot"))
    caplog.set_level(logging.WARNING, logger="nio")
    before = TALLY.rate_limited["matrix"]
    with capture_logs() as seen:
        async with running(mx.config(), mx.env) as r, r.client() as client:
            qid = (await client.create(DEPLOY))["id"]  # the text, then at once the poll: too fast
            await delivered(r, qid)
            _, polls = await mx.prompt_events(qid)
            assert len(polls) == 1, "the poll went out once the homeserver allowed it"
    assert any("429" in rec.getMessage() for rec in caplog.records), "it was rate limited"
    counted = [e for e in seen if e["event"] == "rate_limited"]
    assert counted and all(e["platform"] == "matrix" and e["method"] == "RoomSendError"
                           and e["retry_after"] > 0 for e in counted), counted
    assert TALLY.rate_limited["matrix"] == before + len(counted), "askbridge_rate_limited_total"


async def test_doctor_checks_the_token_with_whoami(mx: Mx) -> None:
    config = mx.config()
    adapter = create(AdapterContext(config, mx.env, "http://127.0.0.1"))
    assert adapter is not None
    assert await adapter.check() == f"Matrix account {mx.bot.id} on {mx.hs.url}"
    wrong = create(AdapterContext(config, {**mx.env, "MATRIX_ACCESS_TOKEN": "syt_nope"},
                                  "http://127.0.0.1"))
    assert wrong is not None
    with pytest.raises(DeliveryError) as refused:
        await wrong.check()
    assert "$MATRIX_ACCESS_TOKEN" in str(refused.value)
    assert "syt_nope" not in str(refused.value)


async def test_a_replica_that_does_not_sync_still_delivers_and_finalizes(mx: Mx) -> None:
    """Only the leader syncs (LongConnection); every replica sends, edits and ends polls."""
    adapter = create(AdapterContext(mx.config(), mx.env, "http://127.0.0.1"))
    assert adapter is not None
    question = PromptQuestion("zones", "Zones", "Which zones?",
                              (("North", None), ("South", None)), True)
    qid = QuestionId("q_" + secrets.token_hex(8))
    prompt = Prompt(qid, AgentName("a"), SessionKey("main"), (question,),
                    datetime.now(UTC) + timedelta(minutes=5), "Zones: Which zones? …", "Zones",
                    "Which zones?", "Expires in 5 min.")
    await adapter.start(None, None)  # type: ignore[arg-type]  # never connect(): no sync, no sink
    try:
        ref = await adapter.deliver(SurfaceId(mx.surface), prompt)
        text, polls = await mx.prompt_events(qid)
        assert len(polls) == 1 and polls[0]["content"][POLL_START]["max_selections"] == 2
        await adapter.finalize(Delivery(qid, SurfaceId(mx.surface), ref),
                               Finalization("expired", "Expired", prompt))
        ends = await seen(lambda: mx.person.from_bot(mx.room, POLL_END, mx.bot.id, qid))
        assert ends[0]["content"]["m.relates_to"]["event_id"] == polls[0]["event_id"]
        edit = [e for e in await mx.person.events(mx.room)
                if e["content"].get("m.relates_to", {}).get("event_id") == text["event_id"]
                and e["content"]["m.relates_to"].get("rel_type") == "m.replace"]
        assert edit and edit[0]["content"]["m.new_content"]["body"].endswith("\n\nExpired")
    finally:
        await adapter.stop()


async def test_a_notice_held_in_one_room_holds_up_no_answer_in_another(mx: Mx) -> None:
    """Rooms are handled side by side: while the homeserver keeps one room's notice waiting, an
    answer given in another room is taken. The position is not stored past the waiting event,
    so a restart handles it again and nothing is lost."""
    other = await make_room(mx.person, mx.bot)

    def notice_in_first_room(method: str, path: str, body: bytes) -> bool:
        return method == "PUT" and mx.room in unquote(path) and b"m.notice" in body

    surfaces = [mx.surface, f"matrix:{other}"]
    async with HeldCalls(mx.hs.url, notice_in_first_room) as slow:
        config = mx.config(surfaces, homeserver=slow.url)
        async with running(config, mx.env) as r, r.client() as client:
            qid = (await client.create(DEPLOY))["id"]
            await until(lambda: _all_delivered(r, qid), timeout=20)
            text, _ = await mx.prompt_events(qid)
            wrong = await mx.person.say(mx.room, "7", reply_to=text["event_id"])
            await asyncio.wait_for(slow.holding.wait(), 20)
            await mx.person.say(other, "production")
            result = await client.result(qid, wait=15)
            assert result is not None and result.answer_map() == {
                "deploy_target": ["Production"]}, "taken while the other room's notice waited"
            assert not await mx.notices(wrong)
        slow.let_go(forward=False)  # the notice is lost with the stopped bridge

    async with running(mx.config(surfaces), mx.env):
        told = await seen(lambda: mx.notices(wrong))
        assert told == ["This question has already ended."], "the reply was handled again"


async def _all_delivered(r: Any, question_id: str) -> bool:
    rows = await r.bridge.store.deliveries(question_id)
    return len(rows) == 2 and all(row.state == "delivered" for row in rows)
