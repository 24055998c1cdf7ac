"""The Control UI in Chromium: live questions, the stepper, skip, answered elsewhere, phones."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, expect

from bridge import SIGNATURE_HEADER, sign
from tests.adapters.web.browser import PHONE, signed_in
from tests.adapters.web.support import DESCRIBED, SURFACES, THREE
from tests.harness import WEBHOOK_SECRET, make_config, running, until
from tests.samples import DEPLOY

THREE_ANSWERED = {"status": "answered", "answers": {"answers": {
    "env": {"answers": ["Production"]},
    "checks": {"answers": ["Lint", "Build"]},
    "notify": {"answers": ["ping <b>@ops</b> & me"]},
}}}


async def test_three_questions_through_the_stepper(tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            signed_in(browser, r) as page:
        await expect(page.locator("#conn")).to_have_attribute("data-state", "live")
        ask = asyncio.create_task(client.ask(THREE))
        panel = page.locator(".panel")
        await expect(panel).to_be_visible()
        await expect(page.locator(".composer")).to_be_hidden()
        await expect(panel.locator(".step-count")).to_have_text("1/3")
        await expect(panel.locator(".countdown")).to_have_text(re.compile(r"^1?\d:\d\d$"))
        await panel.get_by_text("Production", exact=True).click()
        await expect(panel.locator(".step-count")).to_have_text("2/3")
        await panel.get_by_role("checkbox", name="Lint").check()
        await panel.get_by_role("checkbox", name="Build").check()
        await panel.get_by_role("button", name="Next").click()
        await expect(panel.locator(".step-count")).to_have_text("3/3")
        await panel.get_by_role("button", name="Back").click()
        await expect(panel.get_by_role("checkbox", name="Build")).to_be_checked()
        await page.keyboard.press("Enter")
        await panel.get_by_placeholder("Type your own answer").fill("ping <b>@ops</b> & me")
        await panel.get_by_role("button", name="Submit").click()
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == THREE_ANSWERED
        await expect(panel).to_have_count(0)
        await expect(page.locator(".composer")).to_be_visible()
        reply = page.locator(".entry .reply").last
        await expect(reply).to_contain_text("Environment: Production")
        await expect(reply).to_contain_text("Checks: Lint, Build")
        await expect(reply.locator(".sum-answer").last).to_have_text("ping <b>@ops</b> & me")
        assert await page.locator(".reply b").count() == 0, "free text must never become markup"


async def test_keyboard_and_skip(tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            signed_in(browser, r) as page:
        ask = asyncio.create_task(client.ask(DESCRIBED))
        panel = page.locator(".panel")
        await expect(panel).to_be_visible()
        await expect(panel).to_contain_text("Safe default")
        await panel.get_by_role("button", name="Skip").click()
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == {"status": "no_answer", "reason": "skipped"}
        await expect(page.locator(".entry .pill").last).to_have_text("Skipped")
        await expect(panel).to_have_count(0)

        second = asyncio.create_task(client.ask(DESCRIBED))
        await expect(panel).to_be_visible()
        await page.keyboard.press("2")
        await page.keyboard.press("Enter")  # a pick alone never sends
        result = await asyncio.wait_for(second, 10)
        assert result.to_json()["answers"]["answers"]["deploy_target"] == {"answers": ["Production"]}
        await expect(page.locator(".entry .reply").last).to_contain_text("Deploy: Production")


async def test_answered_elsewhere_updates_live(tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            r.http() as http, signed_in(browser, r) as page:
        ask = asyncio.create_task(client.ask(DEPLOY))
        await expect(page.locator(".panel")).to_be_visible()
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        body = json.dumps({"conversation": "+100", "sender": "+100", "text": "canary"}).encode()
        response = await http.post("/v1/channels/webhook/sms", content=body, headers={
            SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body), "content-type": "application/json"})
        assert response.json()["accepted"] is True
        assert (await asyncio.wait_for(ask, 10)).to_json()["status"] == "answered"
        await expect(page.locator(".panel")).to_have_count(0)
        reply = page.locator(".entry .reply.elsewhere")
        await expect(reply).to_contain_text("Answered elsewhere")
        await expect(reply).to_contain_text("Deploy: Canary")


async def test_collapse_expand_and_composer(tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            signed_in(browser, r) as page:
        composer = page.locator("#composer-input")
        await composer.fill("hello there")
        await composer.press("Enter")
        await expect(page.locator(".note")).to_contain_text("no question to answer")

        ask = asyncio.create_task(client.ask(DEPLOY))
        panel = page.locator(".panel")
        await expect(panel).to_be_visible()
        await expect(composer).to_be_hidden()
        await panel.get_by_role("button", name="Collapse").click()
        await expect(panel).to_have_count(0)
        await expect(page.locator(".qbar")).to_contain_text("Where should I deploy?")
        await expect(composer).to_be_visible()
        await page.locator(".qbar").click()
        await expect(panel).to_be_visible()
        await expect(composer).to_be_hidden()
        await page.keyboard.press("Escape")
        await expect(page.locator(".qbar")).to_be_visible()
        await composer.fill("the blue one, please")
        await composer.press("Enter")
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json()["answers"]["answers"]["deploy_target"] == {
            "answers": ["the blue one, please"]}
        await expect(page.locator(".entry .reply").last).to_contain_text("the blue one, please")


async def test_phone_shows_stacked_cards(tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            signed_in(browser, r, PHONE, is_mobile=True, has_touch=True) as page:
        ask = asyncio.create_task(client.ask(THREE))
        cards = page.locator(".panel .qcard")
        await expect(cards).to_have_count(3)
        for i in range(3):
            await expect(cards.nth(i)).to_be_visible()
        await expect(page.locator(".step-count")).to_have_count(0)
        submit = page.get_by_role("button", name="Submit")
        await expect(submit).to_be_disabled()
        await cards.nth(0).get_by_text("Production", exact=True).tap()
        await cards.nth(1).get_by_text("Lint", exact=True).tap()
        await cards.nth(1).get_by_text("Build", exact=True).tap()
        await cards.nth(2).get_by_role("textbox").fill("ping <b>@ops</b> & me")
        box = await cards.nth(0).locator(".option").first.bounding_box()
        assert box is not None and box["height"] >= 44, "touch targets must be large"
        await submit.tap()
        assert (await asyncio.wait_for(ask, 10)).to_json() == THREE_ANSWERED
        await expect(page.locator(".entry .reply").last).to_contain_text("Checks: Lint, Build")


async def test_reload_recovers_pending_and_sessions_are_navigable(
        tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, \
            r.client(session="deploy") as first, r.client(session="release") as second:
        asks: list[asyncio.Task[Any]] = [asyncio.create_task(first.ask(DEPLOY)),
                                         asyncio.create_task(second.ask(THREE))]
        await until(lambda: _pending(r, 2))
        async with signed_in(browser, r) as page:
            badges = page.locator(".session .badge")
            await expect(badges).to_have_count(2)
            await page.locator(".session", has_text="deploy").click()
            await expect(page.locator(".panel .qtext")).to_have_text("Where should I deploy?")
            await page.locator(".session", has_text="release").click()
            await expect(page.locator(".panel .qtext")).to_have_text("Which environment?")
            await page.reload()
            await expect(page.locator(".panel .qtext")).to_have_text("Which environment?")
            await page.get_by_role("button", name="Skip").click()
            await page.get_by_role("button", name="Skip all 3?").click()  # several: confirmed
            await expect(badges).to_have_count(1)
            await page.locator(".session", has_text="deploy").click()
            await page.locator(".panel").get_by_text("Canary", exact=True).click()
            await page.locator(".panel").get_by_role("button", name="Submit").click()
            results = await asyncio.wait_for(asyncio.gather(*asks), 10)
        assert [x.to_json()["status"] for x in results] == ["answered", "no_answer"]


async def test_reconnect_recovers_a_question_asked_while_offline(
        tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client:
        # page.route cannot see requests a service worker makes: without one, the cut is sure
        async with signed_in(browser, r, service_workers="block") as page:
            await expect(page.locator("#conn")).to_have_attribute("data-state", "live")
            await page.route("**/ui/events", lambda route: route.abort())
            r.bridge.adapters["web"].publish({"type": "bye"})  # type: ignore[attr-defined]
            await expect(page.locator("#conn")).to_have_attribute("data-state", "offline")
            ask = asyncio.create_task(client.ask(DEPLOY))
            await until(lambda: _pending(r, 1))
            await page.unroute("**/ui/events")
            await expect(page.locator("#conn")).to_have_attribute("data-state", "live")
            panel = page.locator(".panel")
            await panel.get_by_text("Canary", exact=True).click()
            await panel.get_by_role("button", name="Submit").click()
            result = await asyncio.wait_for(ask, 10)
        assert result.to_json()["answers"]["answers"]["deploy_target"] == {"answers": ["Canary"]}


async def _pending(r: Any, n: int) -> bool:
    return len(await r.bridge.store.pending_questions()) == n


async def test_expired_and_cancelled_update_live(tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            signed_in(browser, r) as page:
        panel = page.locator(".panel")
        for end, shown in [("expire", "Expired"), ("cancel", "Cancelled")]:
            created = await client.create(DEPLOY)
            await expect(panel).to_be_visible()
            if end == "expire":
                await r.bridge.broker.expire(created["id"])
            else:
                assert (await client.cancel(created["id"])).to_json()["reason"] == "cancelled"
            await expect(panel).to_have_count(0)
            await expect(page.locator(".entry .pill").last).to_have_text(shown)
        await expect(page.locator(".session .badge")).to_have_count(0)


async def test_the_timeline_says_reminded_and_escalated(tmp_path: Path, browser: Browser) -> None:
    from bridge.runtime.config import EscalationTier

    config = make_config(tmp_path, surfaces=SURFACES)
    agent = config.agents[0].model_copy(update={
        "remind_after": [1.0], "escalation": [EscalationTier(after=1.0,
                                                             surfaces=["webhook:sms:+200"])]})
    config = config.model_copy(update={"agents": [agent, *config.agents[1:]]})
    async with running(config) as r, r.client() as client, signed_in(browser, r) as page:
        created = await client.create(DEPLOY)
        await until(lambda: _all_sent(r, created["id"]))
        await client.cancel(created["id"])
        note = page.locator(".entry .reach-note").last
        await expect(note).to_have_text("reminded · escalated to webhook:sms:+200")


async def _all_sent(r: Any, qid: str) -> bool:
    return not await r.bridge.store.timers_of(qid)
