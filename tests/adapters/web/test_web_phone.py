"""The page on a phone, measured: touch targets of at least 44 px, nothing covering the session
chips, the open session always in view, and a question that uses the screen it has."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, FloatRect, Locator, Page, expect

from tests.adapters.web.browser import PHONE, signed_in
from tests.adapters.web.support import SURFACES
from tests.harness import Running, make_config, running, until
from tests.samples import DEPLOY

TOUCH = 44
"""The smallest comfortable touch target, in CSS pixels (Apple's and Google's guidance)."""


async def box(locator: Locator) -> FloatRect:
    await expect(locator).to_be_visible()
    found = await locator.bounding_box()
    assert found is not None, f"{locator} has no box"
    return found


def overlap(a: FloatRect, b: FloatRect) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def inside(inner: FloatRect, outer: FloatRect) -> bool:
    return (inner["x"] >= outer["x"] - 0.5 and inner["y"] >= outer["y"] - 0.5
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5)


async def _pending(r: Running, n: int) -> bool:
    return len(await r.bridge.store.pending_questions()) == n


def _phone(browser: Browser, r: Running) -> Any:
    return signed_in(browser, r, PHONE, is_mobile=True, has_touch=True)


async def _big_enough(page: Page, selector: str, width: bool = True) -> None:
    found = await box(page.locator(selector).first)
    assert found["height"] >= TOUCH, f"{selector} is {found['height']:.0f} px high"
    if width:
        assert found["width"] >= TOUCH, f"{selector} is {found['width']:.0f} px wide"


async def test_the_phone_header_covers_no_chip_and_every_target_is_big(
        tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, \
            r.client(session="main") as first, r.client(session="release") as second:
        asks = [asyncio.create_task(first.ask(DEPLOY))]
        await until(lambda: _pending(r, 1))
        asks.append(asyncio.create_task(second.ask(DEPLOY)))
        await until(lambda: _pending(r, 2))
        async with r.client(session="quiet") as quiet:  # nothing waiting there
            await quiet.cancel((await quiet.create(DEPLOY))["id"])
        async with _phone(browser, r) as page:
            await expect(page.locator(".session .badge")).to_have_count(2)
            await expect(page.locator("#notify")).to_have_text(re.compile(r"\S"))
            strip = await box(page.locator("#sessions"))
            controls = [await box(page.locator(s)) for s in ("#notify", "#lang", "#conn", ".brand")]
            waiting = page.locator(".session", has=page.locator(".badge"))
            for chip in [waiting.nth(i) for i in range(2)]:
                for part in (await box(chip), await box(chip.locator(".badge"))):
                    assert inside(part, strip), f"{part} is cut off by the strip {strip}"
                    assert inside(part, {"x": 0, "y": 0, **PHONE}), f"{part} is off screen"
                    covering = [c for c in controls if overlap(part, c)]
                    assert not covering, f"{part} is covered by {covering}"
            for selector in ("#notify", ".session", ".panel .collapse"):
                await _big_enough(page, selector)
            await _big_enough(page, "#lang", width=False)
            await page.locator(".panel .collapse").click()
            await _big_enough(page, ".qbar", width=False)
            await page.locator(".session", has_text="quiet").click()
            await _big_enough(page, ".waitbar", width=False)
        for ask in asks:
            ask.cancel()


async def test_the_open_session_stays_in_the_strip(tmp_path: Path, browser: Browser) -> None:
    names = [f"session-number-{n}" for n in range(6)]
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, \
            r.client(session="newcomer") as newcomer:
        for name in names:  # listed newest first: session-number-0 ends up last
            async with r.client(session=name) as client:
                await client.cancel((await client.create(DEPLOY))["id"])
        async with _phone(browser, r) as page:
            await page.goto(f"{r.url}/#assistant/session-number-0")
            await expect(page.locator("#title")).to_have_text("session-number-0")
            strip = await box(page.locator("#sessions"))
            active = page.locator(".session.active")
            await expect(active).to_contain_text("session-number-0")
            assert inside(await box(active), strip), "the open session is scrolled out of view"
            await page.locator("#sessions").evaluate("strip => { strip.scrollLeft = 0; }")
            ask = asyncio.create_task(newcomer.ask(DEPLOY))  # re-sorts the strip
            await expect(page.locator(".session").first).to_contain_text("newcomer")
            assert inside(await box(active), strip), "a re-sorted strip hid the open session"
            ask.cancel()


async def test_a_short_question_starts_right_below_the_header(tmp_path: Path,
                                                             browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            _phone(browser, r) as page:
        ask = asyncio.create_task(client.ask(DEPLOY))
        panel = await box(page.locator(".panel"))
        header = await box(page.locator(".topbar"))
        gap = panel["y"] - (header["y"] + header["height"])
        assert gap <= 0.05 * PHONE["height"], f"{gap:.0f} px empty above a short question"
        bottom = PHONE["height"] - (panel["y"] + panel["height"])
        assert bottom <= 0.05 * PHONE["height"], f"{bottom:.0f} px empty below the question"
        submit = await box(page.get_by_role("button", name="Submit"))
        assert submit["y"] + submit["height"] > 0.8 * PHONE["height"], "Submit should stay in thumb reach"
        ask.cancel()
