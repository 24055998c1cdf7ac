"""Browser helpers: Debian's Chromium driven by Playwright; absent Chromium fails, never skips."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright.async_api import Browser, BrowserContext, Page, ViewportSize, async_playwright

from tests.harness import WEB_TOKEN, Running

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 800}
WAIT_MS = 10_000
CHROMIUM_PRESENT = Path(CHROMIUM).exists()


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    if not CHROMIUM_PRESENT:
        pytest.fail(f"{CHROMIUM} is missing; install Debian's chromium: apt-get install -y chromium")
    async with async_playwright() as pw:
        launched = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield launched
        finally:
            await launched.close()


@asynccontextmanager
async def signed_in(browser: Browser, r: Running, viewport: ViewportSize = DESKTOP,
                    prepare: Callable[[BrowserContext], Awaitable[None]] | None = None,
                    **options: object) -> AsyncIterator[Page]:
    """A page logged in with the web token; closed before the server stops (its stream ends).
    `prepare` sets the context up (routes, scripts) before the page first loads."""
    context = await browser.new_context(viewport=viewport, **options)  # type: ignore[arg-type]
    context.set_default_timeout(WAIT_MS)
    if prepare is not None:
        await prepare(context)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        await page.goto(f"{r.url}/?token={WEB_TOKEN}")
        assert page.url == f"{r.url}/", "the login redirect should drop the token from the URL"
        yield page
        assert not errors, f"the page threw: {errors}"
    finally:
        await context.close()
