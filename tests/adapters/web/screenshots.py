"""Render docs/web-{desktop,phone}.png (English) and -id.png (Indonesian) from a real bridge,
and the approval card: docs/web-approval-{desktop,phone}.png and web-approval-phone-id.png.

Run: python -m tests.adapters.web.screenshots   (needs /usr/bin/chromium)
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, Page, ViewportSize, async_playwright, expect

from adapters.web.security import CSRF_COOKIE, CSRF_HEADER
from bridge import SIGNATURE_HEADER, sign
from tests.adapters.web.browser import ARGS, CHROMIUM, PHONE, signed_in
from tests.harness import (
    AGENT_TOKEN,
    WEB_TOKEN,
    WEBHOOK_SECRET,
    Running,
    make_config,
    running,
    until,
)

DOCS = Path(__file__).resolve().parents[3] / "docs"
PHONE_OPTIONS: dict[str, Any] = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}
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


ROLLOUT: dict[str, Any] = {
    "action": "Roll out release 2.4 to production", "tool": "kubectl_apply", "risk": "high",
    "arguments": {"namespace": "production", "manifest": "deploy/web-2.4.yaml",
                  "replicas": 6, "strategy": {"type": "RollingUpdate", "maxUnavailable": 1},
                  "annotations": {"change-ticket": "OPS-2417",
                                  "kubernetes.io/change-cause": "release 2.4: faster search"}},
    "argumentsSchema": {"type": "object", "required": ["namespace", "manifest"]}}


async def _approval(r: Running) -> None:
    async with r.http() as http:
        response = await http.post("/v1/sessions/release-bot/approvals", json=ROLLOUT,
                                   headers={"authorization": f"Bearer {AGENT_TOKEN}"})
        response.raise_for_status()


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
                await _approval(r)
                await _approval_pictures(browser, r)
            await browser.close()


async def _approval_pictures(browser: Browser, r: Running) -> None:
    """The approval card on a desktop, on a phone, and on a phone in Indonesian."""
    desktop: ViewportSize = {"width": 1280, "height": 860}
    shots: list[tuple[ViewportSize, str, str, dict[str, Any]]] = [
        (desktop, "en-US", "web-approval-desktop.png", {}),
             (PHONE, "en-US", "web-approval-phone.png", PHONE_OPTIONS),
             (PHONE, "id-ID", "web-approval-phone-id.png", PHONE_OPTIONS)]
    for viewport, locale, name, options in shots:
        async with signed_in(browser, r, viewport, locale=locale, **options) as page:
            await page.locator(".session", has_text="release-bot").click()
            await expect(page.locator(".approval")).to_be_visible()
            await page.wait_for_timeout(300)
            await page.screenshot(path=str(DOCS / name))
            print(f"wrote docs/{name}")


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
