"""Moving between sessions while a question waits: the page shows what was opened, and keeps
the waiting question one tap away instead of pulling the person back to it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, ViewportSize, expect

from tests.adapters.web.browser import DESKTOP, PHONE, signed_in
from tests.adapters.web.support import SURFACES
from tests.harness import Running, make_config, running, until
from tests.samples import DEPLOY

SIZES = [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")]


async def _ended_session(r: Running, session: str) -> None:
    """A session with one cancelled question: listed, with nothing waiting."""
    async with r.client(session=session) as client:
        created = await client.create(DEPLOY)
        await client.cancel(created["id"])


async def _pending(r: Running, n: int) -> bool:
    return len(await r.bridge.store.pending_questions()) == n


async def _shows_single_with_one_waiting(page: Page) -> None:
    await expect(page.locator("#title")).to_have_text("single")
    await expect(page.locator(".session.active")).to_contain_text("single")
    await expect(page.locator(".entry .pill").last).to_have_text("Cancelled")
    await expect(page.locator(".panel")).to_have_count(0)
    await expect(page.locator(".waitbar")).to_contain_text("1 waiting")
    await expect(page.locator(".session", has_text="deploy").locator(".badge")).to_have_text("1")


@pytest.mark.parametrize("viewport", SIZES)
@pytest.mark.parametrize("collapsed", [False, True], ids=["open", "collapsed"])
async def test_a_clicked_session_stays_shown_while_another_waits(
        tmp_path: Path, browser: Browser, viewport: ViewportSize, collapsed: bool) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, \
            r.client(session="deploy") as deploy, r.client(session="later") as later:
        await _ended_session(r, "single")
        ask = asyncio.create_task(deploy.ask(DEPLOY))
        await until(lambda: _pending(r, 1))
        async with signed_in(browser, r, viewport, has_touch=True) as page:
            panel = page.locator(".panel")
            await expect(panel).to_be_visible()  # nothing chosen yet: the waiting one is shown
            if collapsed:
                await panel.get_by_role("button", name="Collapse").click()
                await expect(page.locator(".qbar")).to_be_visible()
            await page.locator(".session", has_text="single").click()
            await _shows_single_with_one_waiting(page)
            # a new question elsewhere refreshes the page; it still does not move
            other = asyncio.create_task(later.ask(DEPLOY))
            await expect(page.locator(".waitbar")).to_contain_text("2 waiting")
            await expect(page.locator("#title")).to_have_text("single")
            await page.locator(".waitbar").click()
            await expect(page.locator(".session.active .badge")).to_have_text("1")
            await expect(page.locator("#title")).not_to_have_text("single")
            for task in (ask, other):
                task.cancel()


async def test_a_session_opened_by_its_address_stays_shown(tmp_path: Path,
                                                           browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, \
            r.client(session="deploy") as deploy:
        await _ended_session(r, "single")
        ask = asyncio.create_task(deploy.ask(DEPLOY))
        await until(lambda: _pending(r, 1))
        async with signed_in(browser, r) as page:
            await expect(page.locator(".panel")).to_be_visible()
            await page.goto(f"{r.url}/#assistant/single")  # the same page, a new address
            await _shows_single_with_one_waiting(page)
            await page.goto("about:blank")
            await page.goto(f"{r.url}/#assistant/single")  # a fresh load with the address
            await _shows_single_with_one_waiting(page)
            await page.locator(".waitbar").click()
            await expect(page.locator("#title")).to_have_text("deploy")
            await page.locator(".panel").get_by_text("Canary", exact=True).click()
            await page.locator(".panel").get_by_role("button", name="Submit").click()
            result = await asyncio.wait_for(ask, 10)
        assert result.to_json()["answers"]["answers"]["deploy_target"] == {"answers": ["Canary"]}
