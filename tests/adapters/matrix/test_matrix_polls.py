"""Native polls against a real Synapse: one question, multi-select, several questions, strangers."""

from __future__ import annotations

from typing import Any

from tests.adapters.matrix.support import POLL_END, POLL_START, Mx, delivered, seen
from tests.harness import running, until
from tests.samples import BOTH, CHECKS, DEPLOY, ask, with_options

START = POLL_START


def _poll(event: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = event["content"][START]
    return block



async def test_a_poll_answered_by_the_person_is_the_answer(mx: Mx) -> None:
    async with running(mx.config(), mx.env) as r, r.client() as client:
        qid = (await client.create(DEPLOY))["id"]
        await delivered(r, qid)
        text, polls = await mx.prompt_events(qid)
        assert "1) Staging (Recommended)" in text["content"]["body"]
        assert len(polls) == 1
        poll = _poll(polls[0])
        assert poll["kind"] == "org.matrix.msc3381.poll.disclosed"
        assert poll["max_selections"] == 1
        assert poll["question"]["org.matrix.msc1767.text"] == "Deploy: Where should I deploy?"
        assert [a["org.matrix.msc1767.text"] for a in poll["answers"]] == [
            "Staging (Recommended)", "Production", "Canary"]

        await mx.person.vote(mx.room, polls[0]["event_id"], poll["answers"][1]["id"])
        result = await client.result(qid, wait=15)
        assert result is not None and result.to_json() == {
            "status": "answered",
            "answers": {"answers": {"deploy_target": {"answers": ["Production"]}}}}
        record = await client.question(qid)
        assert record["answeredBy"] == {"surface": mx.surface, "user": mx.person.id}

        # finalization, as the person sees it: the poll ended, the prompt edited
        ends = await seen(lambda: mx.person.from_bot(mx.room, POLL_END, mx.bot.id, qid))
        assert ends[0]["content"]["m.relates_to"] == {"rel_type": "m.reference",
                                                      "event_id": polls[0]["event_id"]}
        edits = await seen(lambda: _edits_of(mx, text["event_id"]))
        new = edits[0]["content"]["m.new_content"]["body"]
        assert new.endswith("\n\nAnswered: Production")
        assert new.startswith(text["content"]["body"])


async def _edits_of(mx: Mx, event_id: str) -> list[dict[str, Any]]:
    return [e for e in await mx.person.events(mx.room)
            if e["content"].get("m.relates_to", {}).get("rel_type") == "m.replace"
            and e["content"]["m.relates_to"]["event_id"] == event_id]


async def test_a_multi_select_poll_allows_every_option(mx: Mx) -> None:
    checks = ask(with_options(CHECKS, "Lint", "Test", "Build", "Deploy"))
    async with running(mx.config(), mx.env) as r, r.client() as client:
        qid = (await client.create(checks))["id"]
        await delivered(r, qid)
        _, polls = await mx.prompt_events(qid)
        assert _poll(polls[0])["max_selections"] == 4
        await mx.person.vote(mx.room, polls[0]["event_id"], "3", "1")
        result = await client.result(qid, wait=15)
        assert result is not None and result.answer_map() == {"checks": ["Lint", "Build"]}


async def test_several_questions_one_poll_each_answered_with_a_text_for_the_rest(mx: Mx) -> None:
    both = BOTH
    async with running(mx.config(), mx.env) as r, r.client() as client:
        qid = (await client.create(both))["id"]
        await delivered(r, qid)
        _, polls = await mx.prompt_events(qid)
        assert [_poll(p)["max_selections"] for p in polls] == [1, 3]
        await mx.person.vote(mx.room, polls[1]["event_id"], "1", "2")
        await until(lambda: r.bridge.store.partial(qid))
        assert (await client.result(qid)) is None, "one poll of two is not the answer yet"
        await mx.person.say(mx.room, "1: canary")
        result = await client.result(qid, wait=15)
        assert result is not None and result.answer_map() == {
            "deploy_target": ["Canary"], "checks": ["Lint", "Test"]}
        ends = await seen(lambda: _two(mx.person.from_bot(mx.room, POLL_END, mx.bot.id, qid)))
        assert {e["content"]["m.relates_to"]["event_id"] for e in ends} == {
            p["event_id"] for p in polls}


async def _two(found: Any) -> Any:
    items = await found
    return items if len(items) >= 2 else None


async def test_a_strangers_vote_is_refused_politely_and_changes_nothing(mx: Mx) -> None:
    async with running(mx.config(), mx.env) as r, r.client() as client:
        qid = (await client.create(DEPLOY))["id"]
        await delivered(r, qid)
        _, polls = await mx.prompt_events(qid)
        vote = await mx.stranger.vote(mx.room, polls[0]["event_id"], "2")
        said = await seen(lambda: mx.notices(vote))
        assert "only the person this question is for" in said[0]
        assert (await client.result(qid)) is None
        await mx.person.vote(mx.room, polls[0]["event_id"], "3")
        result = await client.result(qid, wait=15)
        assert result is not None and result.answer_map() == {"deploy_target": ["Canary"]}
        assert (await client.question(qid))["answeredBy"]["user"] == mx.person.id


async def test_native_single_keeps_polls_for_one_choice_only(mx: Mx) -> None:
    async with running(mx.config(native="single"), mx.env) as r, r.client() as client:
        multi = (await client.create({"questions": [CHECKS]}))["id"]
        await delivered(r, multi)
        _, polls = await mx.prompt_events(multi)
        assert polls == []
        await mx.person.say(mx.room, "1,3")
        result = await client.result(multi, wait=15)
        assert result is not None and result.answer_map() == {"checks": ["Lint", "Build"]}
        single = (await client.create(DEPLOY))["id"]
        await delivered(r, single)
        _, polls = await mx.prompt_events(single)
        assert len(polls) == 1
        await client.cancel(single)
        await seen(lambda: mx.person.from_bot(mx.room, POLL_END, mx.bot.id, single))
