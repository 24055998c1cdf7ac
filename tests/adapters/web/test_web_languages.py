"""The Control UI speaks the browser's language, can be switched, and remembers the switch."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from playwright.async_api import Browser, BrowserContext, Route, expect

from adapters.web.render import index_page
from adapters.web.routes import STATIC
from adapters.web.security import CSRF_COOKIE, CSRF_HEADER
from bridge import translations
from tests.adapters.web.browser import signed_in
from tests.adapters.web.support import SURFACES, THREE
from tests.harness import WEB_TOKEN, make_config, running, until

ENGLISH_CHROME = re.compile(
    r"\b(Skip|Next|Back|Submit|Other|Sessions|Choose|Type|Waiting|Live|Send|questions?|"
    r"Collapse|Expand|answer|Notify|device|browser|waiting)\b")
"""The page's own English words; the agent's words in THREE avoid them."""


async def test_the_page_follows_accept_language_and_remembers_a_switch(
    tmp_path: Path, browser: Browser,
) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            signed_in(browser, r, locale="id-ID") as page:
        ask = asyncio.create_task(client.ask(THREE))
        panel = page.locator(".panel")
        await expect(panel.get_by_role("button", name="Berikutnya")).to_be_visible()
        await expect(page.locator("html")).to_have_attribute("lang", "id")
        await expect(page.locator("#conn-text")).to_have_text("Terhubung")
        await expect(panel.locator(".hint")).to_have_text("Pilih satu")
        await expect(panel.get_by_placeholder("Ketik jawaban Anda sendiri")).to_be_visible()
        text = await page.locator("body").inner_text()
        assert not ENGLISH_CHROME.search(text), f"English on an Indonesian page: {text}"

        await page.locator("#lang").select_option("en")
        await expect(panel.get_by_role("button", name="Next")).to_be_visible()
        await page.reload()
        await expect(page.locator(".panel").get_by_role("button", name="Next")).to_be_visible()
        await expect(page.locator(".side-label")).to_have_text("Sessions")

        await page.locator("#lang").select_option("id")
        await page.locator(".panel").get_by_role("button", name="Lewati").click()
        # several questions: Skip asks to confirm, in the page's language too
        await page.locator(".panel").get_by_role("button", name="Lewati semua 3?").click()
        assert (await asyncio.wait_for(ask, 10)).reason == "skipped"
        await expect(page.locator(".entry .pill").last).to_have_text("Dilewati")


async def test_answers_are_refused_in_the_persons_language(tmp_path: Path) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            r.http() as web:
        await web.get("/", params={"token": WEB_TOKEN})
        ask = asyncio.create_task(client.ask(THREE))
        qid = (await until(lambda: r.bridge.store.pending_questions()))[0].id
        headers = {"origin": r.url, CSRF_HEADER: web.cookies[CSRF_COOKIE],
                   "accept-language": "id-ID,id;q=0.9"}
        two = {"env": ["Production", "Staging (Recommended)"], "checks": ["Lint"],
               "notify": ["Nobody"]}
        refused = await web.post(f"/ui/api/questions/{qid}/answer", json={"answers": two},
                                 headers=headers)
        assert refused.status_code == 422
        assert refused.json()["message"] == "Environment: pilih satu jawaban saja."
        strings = (await web.get("/ui/api/i18n", headers=headers)).json()
        assert strings["locale"] == "id" and strings["messages"] == translations("id")
        assert {"code": "id", "name": "Bahasa Indonesia"} in strings["locales"]
        web.cookies.set("askbridge_lang", "en")
        assert (await web.get("/ui/api/i18n", headers=headers)).json()["locale"] == "en"
        ask.cancel()


async def test_signed_out_page_in_the_browsers_language(tmp_path: Path) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.http() as web:
        page = await web.get("/", headers={"accept-language": "id"})
        assert page.status_code == 401 and "Masuk ke askbridge" in page.text
        assert '<html lang=id>' in page.text


async def test_the_notify_control_follows_a_switch(tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, \
            signed_in(browser, r, locale="en-US") as page:
        notify = page.locator("#notify")
        await expect(notify).to_have_text("Notify me on this device")
        await page.locator("#lang").select_option("id")
        await expect(page.locator("#conn-text")).to_have_text("Terhubung")
        await expect(notify).to_have_text("Beri tahu saya di perangkat ini")
        await expect(notify).to_have_attribute("title", "Beri tahu saya di perangkat ini")
        await page.locator("#lang").select_option("en")
        await expect(notify).to_have_text("Notify me on this device")


async def test_a_first_load_is_in_the_browsers_language_however_slow_the_strings(
        tmp_path: Path, browser: Browser) -> None:
    """Whatever the page draws before its strings could arrive over a slow request is drawn in
    the person's language too: the strings request is held until the notify control has drawn."""
    drawn = asyncio.Event()

    async def hold(route: Route) -> None:
        await asyncio.wait_for(drawn.wait(), 10)
        await route.continue_()

    async def slow_strings(context: BrowserContext) -> None:
        await context.route("**/ui/api/i18n", hold)

    # without a service worker the control draws at once, and every request is the page's own
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, \
            signed_in(browser, r, prepare=slow_strings, locale="id-ID",
                      service_workers="block") as page:
        notify = page.locator("#notify")
        await expect(notify).to_have_text(re.compile(r"\S"))
        drawn.set()
        await expect(page.locator("#conn-text")).to_have_text("Terhubung")
        await expect(notify).to_have_text("Peramban ini tidak bisa menampilkan notifikasi dari askbridge")
        text = await page.locator("body").inner_text()
        assert not ENGLISH_CHROME.search(text), f"English on an Indonesian page: {text}"


def test_the_inline_strings_cannot_end_their_script_element() -> None:
    template = (STATIC / "index.html").read_text(encoding="utf-8")
    strings = {"locale": "id", "messages": {"Send": "</script><script>alert(1)</script>"},
               "locales": []}
    page = index_page(template, "id", strings).decode()
    assert page.startswith('<!doctype html>\n<html lang="id">')
    inline = re.search(r'<script type="application/json" id="i18n">(.*?)</script>', page)
    assert inline is not None and json.loads(inline.group(1)) == strings
    assert "<script>alert" not in page
