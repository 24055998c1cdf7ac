"""Text replies on Matrix against a real Synapse: numbers, labels, skip, replies-to, strangers."""

from __future__ import annotations

from tests.adapters.matrix.support import Mx, delivered, seen
from tests.harness import running
from tests.samples import BOTH, DEPLOY


async def test_text_replies_answer_by_number_label_and_keyed_lines(mx: Mx) -> None:
    async with running(mx.config(), mx.env) as r, r.client() as client:
        qid = (await client.create(DEPLOY))["id"]
        await delivered(r, qid)
        wrong = await mx.person.say(mx.room, "7")
        told = await seen(lambda: mx.notices(wrong))
        assert "1" in told[0] and "3" in told[0], "the person is told the valid range"
        await mx.person.say(mx.room, " production ")
        result = await client.result(qid, wait=15)
        assert result is not None and result.answer_map() == {"deploy_target": ["Production"]}

        both = (await client.create(BOTH))["id"]
        await delivered(r, both)
        await mx.person.say(mx.room, "1: 2\nchecks: lint, build")
        result = await client.result(both, wait=15)
        assert result is not None and result.answer_map() == {
            "deploy_target": ["Production"], "checks": ["Lint", "Build"]}


async def test_own_words_and_skip(mx: Mx) -> None:
    async with running(mx.config(), mx.env) as r, r.client() as client:
        qid = (await client.create(DEPLOY))["id"]
        await delivered(r, qid)
        await mx.person.say(mx.room, "deploy to the moon")
        result = await client.result(qid, wait=15)
        assert result is not None and result.answer_map() == {
            "deploy_target": ["deploy to the moon"]}
        text, _ = await mx.prompt_events(qid)
        edits = await seen(lambda: _edit_bodies(mx, text["event_id"]))
        assert edits[0].endswith("\n\nAnswered") and "moon" not in edits[0], "never echoed"

        skipped = (await client.create(DEPLOY))["id"]
        await delivered(r, skipped)
        await mx.person.say(mx.room, "skip")
        result = await client.result(skipped, wait=15)
        assert result is not None and result.to_json() == {"status": "no_answer",
                                                           "reason": "skipped"}


async def _edit_bodies(mx: Mx, event_id: str) -> list[str]:
    return [e["content"]["m.new_content"]["body"] for e in await mx.person.events(mx.room)
            if e["content"].get("m.relates_to", {}).get("event_id") == event_id
            and e["content"]["m.relates_to"].get("rel_type") == "m.replace"]


async def test_a_reply_binds_to_the_prompt_it_replies_to(mx: Mx) -> None:
    async with running(mx.config(), mx.env) as r, r.client("test-agent-token-0123456789", "a") as a, \
            r.client(session="b") as b:
        first = (await a.create(DEPLOY))["id"]
        second = (await b.create(DEPLOY))["id"]
        await delivered(r, first)
        await delivered(r, second)
        unbound = await mx.person.say(mx.room, "2")
        told = await seen(lambda: mx.notices(unbound))
        assert "Reply to the prompt you mean" in told[0]

        text, polls = await mx.prompt_events(second)
        await mx.person.say(mx.room, "canary", reply_to=text["event_id"])
        result = await b.result(second, wait=15)
        assert result is not None and result.answer_map() == {"deploy_target": ["Canary"]}
        assert await a.result(first) is None

        # a reply to the poll binds as well
        _, polls = await mx.prompt_events(first)
        await mx.person.say(mx.room, "1", reply_to=polls[0]["event_id"])
        result = await a.result(first, wait=15)
        assert result is not None and result.answer_map() == {
            "deploy_target": ["Staging (Recommended)"]}


async def test_a_strangers_reply_is_refused_and_their_chatter_ignored(mx: Mx) -> None:
    async with running(mx.config(), mx.env) as r, r.client() as client:
        qid = (await client.create(DEPLOY))["id"]
        await delivered(r, qid)
        text, _ = await mx.prompt_events(qid)
        chatter = await mx.stranger.say(mx.room, "2")
        reply = await mx.stranger.say(mx.room, "2", reply_to=text["event_id"])
        told = await seen(lambda: mx.notices(reply))
        assert "only the person this question is for" in told[0]
        assert await mx.notices(chatter) == [], "chatter in a shared room is left alone"
        assert await client.result(qid) is None
        await mx.person.say(mx.room, "3")
        result = await client.result(qid, wait=15)
        assert result is not None and result.answer_map() == {"deploy_target": ["Canary"]}


async def test_an_encrypted_message_from_an_answerer_gets_one_explanation(mx: Mx) -> None:
    sealed = {"algorithm": "m.megolm.v1.aes-sha2", "ciphertext": "AwgAEnAC", "device_id": "DEV",
              "sender_key": "key", "session_id": "session"}
    async with running(mx.config(), mx.env) as r, r.client() as client:
        qid = (await client.create(DEPLOY))["id"]
        await delivered(r, qid)
        first = await mx.person.send(mx.room, "m.room.encrypted", sealed)
        again = await mx.person.send(mx.room, "m.room.encrypted", sealed)
        told = await seen(lambda: mx.notices(first))
        assert "encrypted" in told[0]
        await mx.person.say(mx.room, "2")
        assert (await client.result(qid, wait=15)) is not None
        assert await mx.notices(again) == [], "said once per room"
