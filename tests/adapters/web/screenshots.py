"""Render docs/web-{desktop,phone}.png (English) and -id.png (Indonesian) from a real bridge.

Run: python -m tests.adapters.web.screenshots   (needs /usr/bin/chromium)
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, Page, async_playwright, expect

from adapters.web.security import CSRF_COOKIE, CSRF_HEADER
from bridge import SIGNATURE_HEADER, sign
from tests.adapters.web.browser import ARGS, CHROMIUM, PHONE, signed_in
from tests.harness import WEB_TOKEN, WEBHOOK_SECRET, Running, make_config, running, until

DOCS = Path(__file__).resolve().parents[3] / "docs"
DATABASE = {"questions": [{
    "id": "database", "header": "Database", "question": "Which database should the service use?",
    "options": [{"label": "PostgreSQL (Recommended)", "description": "Already run in production"},
                {"label": "SQLite", "description": "Embedded, zero setup"}]}]}
CACHE = {"questions": [{
    "id": "cache_ttl", "header": "Cache TTL", "question": "How long may API responses be cached?",
    "options": [{"label": "5 minutes (Recommended)"}, {"label": "1 hour"}]}]}
LICENSE = {"questions": [{
    "id": "license", "header": "License", "question": "Which license should the new package use?",
    "options": [{"label": "MIT"}, {"label": "Apache-2.0"}]}]}
RELEASE = {"timeoutSeconds": 900, "questions": [
    {"id": "target", "header": "Deploy", "question": "Where should I deploy release 2.4?",
     "options": [{"label": "Staging (Recommended)", "description": "Verify with smoke tests first"},
                 {"label": "Production", "description": "Goes live for every customer"},
                 {"label": "Canary", "description": "5% of traffic for an hour"}]},
    {"id": "checks", "header": "Checks", "question": "Which checks must pass before it ships?",
     "multiSelect": True,
     "options": [{"label": "Lint"}, {"label": "Unit tests"}, {"label": "Integration tests"},
                 {"label": "Load test"}]},
    {"id": "notes", "header": "Notes", "question": "Who should get the release notes?",
     "options": [{"label": "Engineering only"}, {"label": "Everyone"}]}]}


async def _answer(r: Running, web: httpx.AsyncClient, answers: Any) -> None:
    records = await until(lambda: r.bridge.store.pending_questions())
    response = await web.post(f"/ui/api/questions/{records[0].id}/answer",
                              json={"answers": answers},
                              headers={"origin": r.url, CSRF_HEADER: web.cookies[CSRF_COOKIE]})
    response.raise_for_status()


async def _history(r: Running) -> None:
    async with r.http() as web, r.http() as hook, r.client(session="api-server") as client:
        await web.get("/", params={"token": WEB_TOKEN})
        for request, answers in [(DATABASE, {"database": ["PostgreSQL (Recommended)"]}),
                                 (LICENSE, None)]:
            ask = asyncio.create_task(client.ask(request))
            await _answer(r, web, answers)
            await ask
        ask = asyncio.create_task(client.ask(CACHE))
        await until(lambda: r.bridge.store.pending_questions())
        body = json.dumps({"conversation": "+100", "sender": "+100", "text": "1"}).encode()
        await hook.post("/v1/channels/webhook/sms", content=body, headers={
            SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body), "content-type": "application/json"})
        await ask
    async with r.client(session="docs-site") as other:
        ask = asyncio.create_task(other.ask(LICENSE))
        await until(lambda: r.bridge.store.pending_questions())
        await _answer(r, web=await _web(r), answers={"license": ["Apache-2.0"]})
        await ask


async def _web(r: Running) -> httpx.AsyncClient:
    web = r.http()
    await web.get("/", params={"token": WEB_TOKEN})
    return web


async def _shoot(page: Page, name: str) -> None:
    await expect(page.locator(".panel")).to_be_visible()
    await page.wait_for_timeout(300)  # let the countdown tick once before the picture
    await page.screenshot(path=str(DOCS / name))
    print(f"wrote docs/{name}")


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        config = make_config(Path(tmp), surfaces=["web", "webhook:sms:+100"])
        async with running(config) as r, async_playwright() as pw:
            await _history(r)
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            async with r.client(session="api-server") as client, r.client(session="ci") as ci:
                ask = asyncio.create_task(client.ask(RELEASE))
                other = asyncio.create_task(ci.ask(CACHE))
                await until(lambda: _pending(r, 2))
                for locale, suffix in (("en-US", ""), ("id-ID", "-id")):
                    await _pictures(browser, r, locale, suffix)
                for task in (ask, other):
                    task.cancel()
            await browser.close()


async def _pictures(browser: Browser, r: Running, locale: str, suffix: str) -> None:
    """The desktop stepper and the phone's stacked cards, in the browser language `locale`."""
    async with signed_in(browser, r, {"width": 1280, "height": 860}, locale=locale) as page:
        await page.locator(".session", has_text="api-server").click()
        await page.locator(".panel").get_by_text("Staging (Recommended)").click()
        await page.locator(".panel").get_by_text("Unit tests").click()
        await page.locator(".panel").get_by_text("Lint").click()
        await _shoot(page, f"web-desktop{suffix}.png")
    async with signed_in(browser, r, PHONE, is_mobile=True, has_touch=True,
                         device_scale_factor=2, locale=locale) as page:
        await page.locator(".session", has_text="api-server").click()
        await page.locator(".qcard").first.get_by_text("Production").tap()
        await _shoot(page, f"web-phone{suffix}.png")


async def _pending(r: Running, n: int) -> bool:
    return len(await r.bridge.store.pending_questions()) == n


if __name__ == "__main__":
    asyncio.run(main())
