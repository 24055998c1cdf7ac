"""The Control UI's first-run edges: favicon, a wrong token, Skip on several questions, the header."""

from __future__ import annotations

import asyncio
from pathlib import Path

from playwright.async_api import Browser, Page, expect

from tests.adapters.web.browser import DESKTOP, PHONE, WAIT_MS, signed_in
from tests.adapters.web.support import SURFACES, THREE
from tests.harness import make_config, running
from tests.samples import DEPLOY


def watch_failures(page: Page) -> list[str]:
    """Every failed request and console error the page sees."""
    failures: list[str] = []
    page.on("response", lambda r: failures.append(f"{r.status} {r.url}") if r.status == 404
            else None)
    page.on("console", lambda m: failures.append(m.text) if m.type == "error" else None)
    return failures


async def test_a_wrong_login_token_says_so_and_no_page_404s(
        tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r:
        context = await browser.new_context(viewport=DESKTOP)
        context.set_default_timeout(WAIT_MS)
        page = await context.new_page()
        failures = watch_failures(page)
        try:
            response = await page.goto(f"{r.url}/?token=not-the-token")
            assert response is not None and response.status == 401
            await expect(page.locator("h1")).to_have_text("That login token is wrong")
            await page.goto(f"{r.url}/")
            await expect(page.locator("h1")).to_have_text("Sign in to askbridge")  # not "wrong"
            assert await page.locator("link[rel=icon]").count() == 1
        finally:
            await context.close()
        assert [f for f in failures if "404" in f or "favicon" in f] == [], failures


async def test_signed_in_page_has_a_favicon_and_no_console_errors(
        tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, \
            signed_in(browser, r) as page:
        failures = watch_failures(page)
        await page.reload()
        await expect(page.locator("#conn")).to_have_attribute("data-state", "live")
        assert await page.locator("link[rel=icon]").get_attribute("href") or ""
        assert failures == []


async def test_skip_on_several_questions_asks_first(tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            signed_in(browser, r) as page:
        ask = asyncio.create_task(client.ask(THREE))
        panel = page.locator(".panel")
        await expect(panel).to_be_visible()
        await panel.get_by_role("button", name="Skip", exact=True).click()
        confirm = panel.get_by_role("button", name="Skip all 3?")
        await expect(confirm).to_be_visible()
        assert not ask.done()  # one tap did not skip three questions
        await panel.get_by_text("Production", exact=True).click()  # going on resets it
        await expect(panel.get_by_role("button", name="Skip", exact=True)).to_be_visible()
        await panel.get_by_role("button", name="Skip", exact=True).click()
        await confirm.click()
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json() == {"status": "no_answer", "reason": "skipped"}


async def test_one_question_skips_at_once(tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            signed_in(browser, r) as page:
        ask = asyncio.create_task(client.ask(DEPLOY))
        await page.locator(".panel").get_by_role("button", name="Skip", exact=True).click()
        assert (await asyncio.wait_for(ask, 10)).to_json()["reason"] == "skipped"


async def test_header_tells_agent_and_session_apart_and_counts_questions(
        tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, \
            r.client(session="release") as client, signed_in(browser, r) as page:
        ask = asyncio.create_task(client.ask(THREE))
        await expect(page.locator(".panel")).to_be_visible()
        await expect(page.locator("#title")).to_have_text("release")
        await expect(page.locator("#subtitle")).to_have_text(
            "Agent: assistant · Session: release · 3 questions · History is kept for 30 days")
        ask.cancel()


async def test_phone_shows_no_big_waiting_placeholder(tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            signed_in(browser, r, viewport=PHONE) as page:
        ask = asyncio.create_task(client.ask(DEPLOY))
        await expect(page.locator(".panel")).to_be_visible()
        await expect(page.locator(".empty.waiting")).to_be_hidden()
        await expect(page.locator(".panel .option").first).to_be_in_viewport()
        ask.cancel()
