"""The webhook text channel end to end: prompt out (signed), reply in (signed), result back."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from bridge import SIGNATURE_HEADER, sign
from tests.adapters.webhook.support import gateway_config, post_reply
from tests.harness import WEBHOOK_SECRET, make_config, running, until
from tests.samples import BOTH, DEPLOY


async def test_reply_by_number_answers_the_agent(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as client, r.http() as http:
        ask = asyncio.create_task(client.ask(DEPLOY))
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        response = await post_reply(http, "2")
        assert response.status_code == 200
        assert response.json()["accepted"] is True
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == {
            "status": "answered",
            "answers": {"answers": {"deploy_target": {"answers": ["Production"]}}},
        }


async def test_prompt_is_posted_signed_and_finalized_without_echoing_free_text(
    tmp_path: Path,
) -> None:
    from tests.fakes.gateway import gateway

    async with gateway(WEBHOOK_SECRET) as gw:
        async with running(gateway_config(tmp_path, gw.url)) as r, r.client() as c, r.http() as h:
            ask = asyncio.create_task(c.ask(DEPLOY))
            prompt = (await until(gw.prompts))[0]
            assert prompt["conversation"] == "+100" and prompt["kind"] == "prompt"
            assert "1) Staging (Recommended)" in prompt["text"] and "skip" in prompt["text"]
            reply = await post_reply(h, "my secret plan: ship on friday", replyTo=prompt["questionId"])
            assert reply.json()["accepted"] is True
            assert "secret" not in reply.json()["reply"]
            result = await asyncio.wait_for(ask, 10)
            assert result.answer_map() == {"deploy_target": ["my secret plan: ship on friday"]}
            status = (await until(gw.statuses))[0]
            assert status["questionId"] == prompt["questionId"]
            assert status["text"] == "Deploy: Answered"
        assert gw.bad_signatures == 0


async def test_gateway_errors_are_retried(tmp_path: Path) -> None:
    from tests.fakes.gateway import gateway

    async with gateway(WEBHOOK_SECRET) as gw:
        gw.fail_next = [503, 502]
        async with running(gateway_config(tmp_path, gw.url)) as r, r.client() as c, r.http() as h:
            ask = asyncio.create_task(c.ask(DEPLOY))
            await until(gw.prompts)
            await post_reply(h, "1")
            assert (await asyncio.wait_for(ask, 10)).answer_map() == {
                "deploy_target": ["Staging (Recommended)"]}


async def test_unreachable_only_surface_ends_undelivered_fast(tmp_path: Path) -> None:
    from tests.harness import free_port

    url = f"http://127.0.0.1:{free_port()}/send"
    async with running(gateway_config(tmp_path, url, attempts=2)) as r, r.client() as c:
        result = await asyncio.wait_for(c.ask(DEPLOY), 10)
        assert result.to_json() == {"status": "no_answer", "reason": "undelivered"}
        question = (await c.timeline())[0]
        assert question["deliveries"][0]["state"] == "failed"
        assert "could not be reached" in question["deliveries"][0]["error"]


async def test_unsigned_or_wrongly_signed_reply_is_401_and_changes_nothing(
    tmp_path: Path,
) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as c, r.http() as http:
        created = await c.create(DEPLOY)
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        body = json.dumps({"conversation": "+100", "sender": "+100", "text": "1"}).encode()
        unsigned = await http.post("/v1/channels/webhook/sms", content=body)
        wrong = await http.post("/v1/channels/webhook/sms", content=body,
                                headers={SIGNATURE_HEADER: sign("not-the-secret", body)})
        tampered = await http.post("/v1/channels/webhook/sms", content=body + b" ",
                                   headers={SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body)})
        assert [x.status_code for x in (unsigned, wrong, tampered)] == [401, 401, 401]
        record = await c.question(created["id"])
        assert record["status"] == "pending"
        assert await r.bridge.store.partial(created["id"]) == {}


async def test_malformed_body_and_unknown_channel(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        body = b'{"conversation": "+100"}'
        bad = await http.post("/v1/channels/webhook/sms", content=body,
                              headers={SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body)})
        assert bad.status_code == 422
        assert {d["loc"] for d in bad.json()["details"]} == {"sender", "text"}
        unknown = await http.post("/v1/channels/webhook/nope", content=body)
        assert unknown.status_code == 404


async def test_no_pending_question_leaves_the_message_alone(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        response = await post_reply(http, "hello there")
        assert response.json() == {"accepted": False, "reply": ""}


async def test_out_of_range_number_keeps_the_question_pending(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as c, r.http() as http:
        created = await c.create(DEPLOY)
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        response = (await post_reply(http, "7")).json()
        assert response["accepted"] is False and "1 to 3" in response["reply"]
        assert (await c.question(created["id"]))["status"] == "pending"
        assert (await post_reply(http, "canary")).json()["accepted"] is True
        assert (await c.result(created["id"], wait=5)).answer_map() == {  # type: ignore[union-attr]
            "deploy_target": ["Canary"]}


async def test_partial_multi_question_reply_then_the_rest(tmp_path: Path) -> None:
    both = BOTH
    async with running(make_config(tmp_path)) as r, r.client() as c, r.http() as http:
        created = await c.create(both)
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        first = (await post_reply(http, "1: 2")).json()
        assert first["accepted"] is True and "Still needed: 2. Checks" in first["reply"]
        second = (await post_reply(http, "1,3")).json()
        assert second["accepted"] is True
        result = await c.result(created["id"], wait=5)
        assert result is not None and result.answer_map() == {
            "deploy_target": ["Production"], "checks": ["Lint", "Build"]}


async def test_skip_ends_the_whole_prompt(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as c, r.http() as http:
        ask = asyncio.create_task(c.ask(BOTH))
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        assert (await post_reply(http, "/skip")).json()["accepted"] is True
        assert (await asyncio.wait_for(ask, 10)).to_json() == {"status": "no_answer",
                                                                "reason": "skipped"}


async def test_only_answerers_may_answer(tmp_path: Path) -> None:
    config = make_config(tmp_path, webhooks={"sms": {"secret_env": "HOOK_SECRET",
                                                     "answerers": ["+100"]}})
    async with running(config) as r, r.client() as c, r.http() as http:
        created = await c.create(DEPLOY)
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        refused = (await post_reply(http, "1", sender="+999")).json()
        assert refused["accepted"] is False and "only the person" in refused["reply"]
        assert (await c.question(created["id"]))["status"] == "pending"
        assert (await post_reply(http, "1", sender="+100")).json()["accepted"] is True


async def test_several_sessions_in_one_conversation_need_a_reply_to(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as c, r.http() as http:
        one = await c.create(DEPLOY, session="one")
        two = await c.create(DEPLOY, session="two")
        await until(lambda: _count_pending(r, 2))
        vague = (await post_reply(http, "2")).json()
        assert vague["accepted"] is False and "Reply to the prompt" in vague["reply"]
        aimed = (await post_reply(http, "2", replyTo=two["id"])).json()
        assert aimed["accepted"] is True
        assert (await c.question(one["id"]))["status"] == "pending"
        assert (await c.question(two["id"]))["status"] == "answered"
        late = (await post_reply(http, "1", replyTo=two["id"])).json()
        assert late["accepted"] is False and "already ended" in late["reply"]


async def _count_pending(r: Any, n: int) -> bool:
    return len(await r.bridge.store.pending_on_surface("webhook:sms:+100")) == n


async def test_a_reply_to_something_else_is_left_alone(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as c, r.http() as http:
        created = await c.create(DEPLOY)
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        stray = (await post_reply(http, "2", replyTo="some-other-message")).json()
        assert stray == {"accepted": False, "reply": ""}
        assert (await c.question(created["id"]))["status"] == "pending"


async def test_a_reply_to_a_question_sent_elsewhere_is_left_alone(tmp_path: Path) -> None:
    config = make_config(tmp_path, surfaces=["webhook:sms:+100"])
    async with running(config) as r, r.client() as c, r.http() as http:
        created = await c.create(DEPLOY)
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        body = json.dumps({"conversation": "+999", "sender": "+999", "text": "2",
                           "replyTo": created["id"]}).encode()
        stranger = await http.post("/v1/channels/webhook/sms", content=body,
                                   headers={SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body)})
        assert stranger.json() == {"accepted": False, "reply": ""}
        assert (await c.question(created["id"]))["status"] == "pending"
