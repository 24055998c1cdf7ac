"""Choosing an option never sends: on a desktop and on a phone alike, a pick can be changed until
Submit (or Enter) sends it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from playwright.async_api import Browser, ViewportSize, expect

from tests.adapters.web.browser import DESKTOP, PHONE, signed_in
from tests.adapters.web.support import SURFACES
from tests.harness import make_config, running
from tests.samples import DEPLOY

SIZES = [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")]


@pytest.mark.parametrize("viewport", SIZES)
async def test_a_single_choice_waits_for_submit(tmp_path: Path, browser: Browser,
                                                viewport: ViewportSize) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            signed_in(browser, r, viewport, has_touch=True) as page:
        ask = asyncio.create_task(client.ask(DEPLOY))
        panel = page.locator(".panel")
        submit = panel.get_by_role("button", name="Submit")
        await expect(submit).to_be_disabled()
        await panel.get_by_text("Production", exact=True).click()
        await expect(panel.get_by_role("radio", name="Production")).to_be_checked()
        await expect(submit).to_be_enabled()
        await panel.get_by_text("Canary", exact=True).click()  # a change of mind is still possible
        await expect(panel.get_by_role("radio", name="Canary")).to_be_checked()
        assert not ask.done()
        await submit.click()
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json()["answers"]["answers"]["deploy_target"] == {"answers": ["Canary"]}
        await expect(panel).to_have_count(0)


async def test_keys_pick_and_enter_sends(tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            signed_in(browser, r) as page:
        ask = asyncio.create_task(client.ask(DEPLOY))
        panel = page.locator(".panel")
        await expect(panel).to_be_visible()
        await page.keyboard.press("3")
        await expect(panel.get_by_role("radio", name="Canary")).to_be_checked()
        await page.keyboard.press("2")
        await expect(panel.get_by_role("button", name="Submit")).to_be_focused()
        await page.keyboard.press("Enter")
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json()["answers"]["answers"]["deploy_target"] == {"answers": ["Production"]}
