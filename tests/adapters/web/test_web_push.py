"""Web Push end to end against a fake push service: signed, encrypted, answered, closed, pruned."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
import structlog

from adapters.web import push
from adapters.web.push import subscription_key
from adapters.web.vapid import PRIVATE_KEY
from bridge import Delivery, QuestionId, Reminder, SurfaceId
from tests.adapters.web.support import PUBLIC, SUBJECT, THREE, config, login, same_origin, stored, subscribed
from tests.fakes.push import FakeBrowser, fake_push_service
from tests.harness import Running, running, until
from tests.samples import DEPLOY


async def test_every_device_gets_the_question_signed_and_encrypted(tmp_path: Path) -> None:
    async with fake_push_service() as service, running(config(tmp_path)) as r, r.http() as http, \
            r.client() as agent:
        phone, laptop = service.browser("phone"), service.browser("laptop")
        await subscribed(r, http, phone, laptop)
        public_key = (await http.get("/ui/api/push/key")).json()["publicKey"]
        created = await agent.create(DEPLOY)
        await until(lambda: service.delivered(phone) and service.delivered(laptop))
        expected = {
            "questionId": created["id"], "title": "Deploy", "body": "Where should I deploy?",
            "url": f"{PUBLIC}/#assistant/main",
            "actions": [{"action": "answer:0", "title": "Staging (Recommended)"},
                        {"action": "answer:1", "title": "Production"}],
        }
        assert service.delivered(phone) == [expected] and service.delivered(laptop) == [expected]
        first = service.pushes[0]
        assert first.vapid_key == public_key, "signed with the key the page subscribed with"
        assert first.claims["sub"] == SUBJECT and first.claims["aud"] == service.origin
        assert first.headers["content-encoding"] == "aes128gcm"
        assert first.headers["urgency"] == "high"
        assert 0 < int(first.headers["ttl"]) <= 900
        assert service.refused == []


async def test_an_action_answers_through_the_worker_and_every_device_closes(tmp_path: Path) -> None:
    async with fake_push_service() as service, running(config(tmp_path)) as r, r.http() as http, \
            r.client() as agent:
        phone, laptop = service.browser("phone"), service.browser("laptop")
        csrf = await subscribed(r, http, phone, laptop)
        ask = asyncio.create_task(agent.ask(DEPLOY))
        [shown] = await until(lambda: service.delivered(phone))
        # What sw.js sends for a tap on the notification's second action: the page's cookie, its
        # CSRF token and the origin a same-origin fetch from the worker carries.
        tap = await http.post(f"/ui/api/questions/{shown['questionId']}/action",
                              json={"action": shown["actions"][1]["action"]},
                              headers=same_origin(r, csrf))
        assert tap.status_code == 200 and tap.json()["accepted"] is True
        result = await asyncio.wait_for(ask, 10)
        assert result.answer_map() == {"deploy_target": ["Production"]}
        closed = {"questionId": shown["questionId"], "closed": True}
        await until(lambda: closed in service.delivered(phone) and closed in service.delivered(laptop))
        again = await http.post(f"/ui/api/questions/{shown['questionId']}/action",
                                json={"action": "answer:0"}, headers=same_origin(r, csrf))
        assert again.status_code == 409, "a late tap is told the question ended"


async def test_several_questions_get_no_actions(tmp_path: Path) -> None:
    async with fake_push_service() as service, running(config(tmp_path)) as r, r.http() as http, \
            r.client() as agent:
        phone = service.browser("phone")
        csrf = await subscribed(r, http, phone)
        created = await agent.create(THREE)
        [shown] = await until(lambda: service.delivered(phone))
        assert shown["title"] == "Environment · Checks · Notify" and shown["actions"] == []
        assert shown["body"].splitlines() == ["Which environment?", "Which checks should run first?",
                                              "Who should hear about it?"]
        tap = await http.post(f"/ui/api/questions/{created['id']}/action",
                              json={"action": "answer:0"}, headers=same_origin(r, csrf))
        assert tap.status_code == 403
        for bad in [{"action": "skip"}, {"action": "answer:x"}, {"nope": 1}]:
            response = await http.post(f"/ui/api/questions/{created['id']}/action", json=bad,
                                       headers=same_origin(r, csrf))
            assert response.status_code == 422, bad
        record = await agent.result(created["id"], wait=0)
        assert record is None, "nothing was answered"


async def test_a_gone_subscription_is_forgotten(tmp_path: Path) -> None:
    async with fake_push_service() as service, running(config(tmp_path)) as r, r.http() as http, \
            r.client() as agent:
        gone, kept = service.browser("gone", replies=[410]), service.browser("kept")
        await subscribed(r, http, gone, kept)
        assert len(await stored(r)) == 2
        await agent.create(DEPLOY)
        await until(lambda: service.delivered(kept))
        await until(lambda: _only(r, kept))
        assert [p.status for p in service.pushes if p.browser is gone] == [410], "never retried"


async def _only(r: Running, browser: FakeBrowser) -> bool:
    return await stored(r) == [subscription_key(browser.endpoint)]


async def test_a_busy_push_service_is_retried_with_backoff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(push, "RETRY_START", 0.01)
    async with fake_push_service() as service, running(config(tmp_path)) as r, r.http() as http, \
            r.client() as agent:
        flaky = service.browser("flaky", replies=[503, 429])
        await subscribed(r, http, flaky)
        created = await agent.create(DEPLOY)
        [shown] = await until(lambda: service.delivered(flaky))
        assert shown["questionId"] == created["id"]
        assert [p.status for p in service.pushes] == [503, 429, 201]
        assert await stored(r) == [subscription_key(flaky.endpoint)], "busy is not gone"


async def test_push_never_slows_the_ask(tmp_path: Path) -> None:
    async with fake_push_service() as service, running(config(tmp_path)) as r, r.http() as http, \
            r.client() as agent:
        stuck = service.browser("stuck")
        await subscribed(r, http, stuck)
        service.hold = asyncio.Event()
        created = await agent.create(DEPLOY)
        await until(lambda: service.held == 1)
        record = await agent.question(created["id"])
        web = next(d for d in record["deliveries"] if d["surface"] == "web")
        assert web["state"] == "delivered" and service.pushes == [], "delivered while push waits"
        service.hold.set()
        await until(lambda: service.delivered(stuck))


async def test_subscribing_needs_the_cookie_the_origin_and_the_csrf_token(tmp_path: Path) -> None:
    async with fake_push_service() as service, running(config(tmp_path)) as r, r.http() as http:
        body = service.browser("phone").subscription()
        route = "/ui/api/push/subscriptions"
        assert (await http.get("/ui/api/push/key")).status_code == 401
        assert (await http.post(route, json=body, headers={"origin": r.url})).status_code == 401
        csrf = await login(r, http)
        refused = [
            {"x-askbridge-csrf": csrf, "origin": "https://evil.example"},
            {"x-askbridge-csrf": csrf},
            {"x-askbridge-csrf": csrf, "origin": r.url, "sec-fetch-site": "cross-site"},
            {"origin": r.url},
            {"x-askbridge-csrf": "forged", "origin": r.url},
        ]
        for headers in refused:
            assert (await http.post(route, json=body, headers=headers)).status_code == 403, headers
            response = await http.request("DELETE", route, json={"endpoint": body["endpoint"]},
                                          headers=headers)
            assert response.status_code == 403, headers
        assert await stored(r) == [], "nothing was stored by a refused request"
        for bad in [{"endpoint": body["endpoint"]}, {**body, "endpoint": "http://push.example/x"},
                    {**body, "keys": {"p256dh": "AAAA", "auth": body["keys"]["auth"]}}, [1]]:
            response = await http.post(route, json=bad, headers=same_origin(r, csrf))
            assert response.status_code == 422, bad
        assert (await http.post(route, json=body, headers=same_origin(r, csrf))).status_code == 201
        response = await http.request("DELETE", route, json={"endpoint": body["endpoint"]},
                                      headers=same_origin(r, csrf))
        assert response.status_code == 204 and await stored(r) == []


async def test_an_unsubscribed_device_hears_nothing(tmp_path: Path) -> None:
    async with fake_push_service() as service, running(config(tmp_path)) as r, r.http() as http, \
            r.client() as agent:
        left, stays = service.browser("left"), service.browser("stays")
        csrf = await subscribed(r, http, left, stays)
        response = await http.request("DELETE", "/ui/api/push/subscriptions",
                                      json={"endpoint": left.endpoint}, headers=same_origin(r, csrf))
        assert response.status_code == 204
        await agent.create(DEPLOY)
        await until(lambda: service.delivered(stays))
        assert service.delivered(left) == []


async def test_the_vapid_key_is_made_once_kept_and_never_shown(tmp_path: Path) -> None:
    with structlog.testing.capture_logs() as logs:
        async with running(config(tmp_path)) as r, r.http() as http:
            await login(r, http)
            first = (await http.get("/ui/api/push/key")).json()
            private = await r.bridge.store.state_get("web", PRIVATE_KEY)
        async with running(config(tmp_path)) as r, r.http() as http:
            await login(r, http)
            assert (await http.get("/ui/api/push/key")).json() == first
    assert private and private not in str(logs) and private not in str(first)
    assert len(first["publicKey"]) == 87, "an uncompressed P-256 point, base64url"


async def test_a_reminder_is_pushed_and_shown_on_open_pages(tmp_path: Path) -> None:
    async with fake_push_service() as service, running(config(tmp_path)) as r, r.http() as http, \
            r.client() as agent:
        phone = service.browser("phone")
        await subscribed(r, http, phone)
        created = await agent.create(DEPLOY)
        await until(lambda: service.delivered(phone))
        web = r.bridge.adapters["web"]
        page: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        web.listeners.add(page)  # type: ignore[attr-defined]
        prompt = await r.bridge.reads.prompt_for(QuestionId(created["id"]))
        assert prompt is not None
        text = "Reminder: Deploy — still waiting for your answer; expires in 14 min"
        delivery = Delivery(QuestionId(created["id"]), SurfaceId("web"), None)
        await web.remind(delivery, Reminder(prompt, text, 1))  # type: ignore[attr-defined]
        assert (await asyncio.wait_for(page.get(), 5)) == {
            "type": "reminder", "questionId": created["id"], "text": text}
        [_, again] = await until(lambda: service.delivered(phone)[1:] and service.delivered(phone))
        assert again["body"] == f"{text}\nWhere should I deploy?" and again["title"] == "Deploy"
        assert len(again["actions"]) == 2


SENDER_ON_DEMAND = """
import asyncio, sys
from pathlib import Path
from tests.samples import DEPLOY
from tests.adapters.web.support import config, subscribed
from tests.fakes.push import fake_push_service
from tests.harness import running, until

async def main() -> None:
    async with fake_push_service() as service, running(config(Path(sys.argv[1]))) as r, \\
            r.http() as http, r.client() as agent:
        print("started", "pywebpush" in sys.modules)
        phone = service.browser("phone")
        await subscribed(r, http, phone)
        await agent.create(DEPLOY)
        await until(lambda: service.delivered(phone))
        print("pushed", "pywebpush" in sys.modules)

asyncio.run(main())
"""


async def test_the_push_sender_loads_with_the_first_push_not_at_start(tmp_path: Path) -> None:
    """pywebpush (with aiohttp and requests) costs a start about 0.24 s and 13 MB; a web UI
    without subscribed devices never needs it."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", SENDER_ON_DEMAND, str(tmp_path), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, cwd=Path(__file__).parents[3])
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    lines = [line for line in out.decode().splitlines()
             if line.split(" ")[0] in {"started", "pushed"}]
    assert lines == ["started False", "pushed True"], out.decode()[-3000:]
