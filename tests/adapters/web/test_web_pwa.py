"""The installable app in Chromium: manifest, service worker, offline shell, the notify control."""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Callable
from pathlib import Path

from playwright.async_api import Browser, expect

from adapters.web.push import subscription_key
from bridge import Delivery, QuestionId, Reminder, SurfaceId
from tests.adapters.web.browser import WAIT_MS, signed_in
from tests.adapters.web.support import config, stored
from tests.fakes.push import fake_push_service
from tests.harness import WEB_TOKEN, running, until
from tests.samples import DEPLOY

CONTROLLED = "() => navigator.serviceWorker.controller !== null"
STUB_SUBSCRIBE = """(subscription) => {
  window.subscribeCalls = [];
  PushManager.prototype.subscribe = async function (options) {
    const key = new Uint8Array(options.applicationServerKey);
    window.subscribeCalls.push({ userVisibleOnly: options.userVisibleOnly,
                                 key: btoa(String.fromCharCode(...key)) });
    return { endpoint: subscription.endpoint, toJSON: () => subscription,
             unsubscribe: async () => true };
  };
}"""


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


async def test_the_manifest_is_linked_and_valid_with_real_icons(tmp_path: Path,
                                                                browser: Browser) -> None:
    async with running(config(tmp_path)) as r, signed_in(browser, r) as page, r.http() as http:
        assert await page.locator("link[rel=manifest]").get_attribute("href") == "/manifest.webmanifest"
        await page.wait_for_function(CONTROLLED)
        cdp = await page.context.new_cdp_session(page)
        found = await cdp.send("Page.getAppManifest")
        assert found["url"] == f"{r.url}/manifest.webmanifest" and found["errors"] == []
        manifest = json.loads(found["data"])
        assert manifest["name"] == "askbridge" and manifest["short_name"] == "askbridge"
        assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
        assert manifest["theme_color"].startswith("#")
        sizes = set()
        for icon in manifest["icons"]:
            response = await http.get(icon["src"])  # no cookie: browsers fetch icons without one
            assert response.status_code == 200 and response.headers["content-type"] == "image/png"
            width, height = png_size(response.content)
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add(width)
        assert sizes == {192, 512}
        worker = await http.get("/sw.js")
        assert worker.status_code == 200 and "javascript" in worker.headers["content-type"]


async def test_the_worker_controls_the_page_and_the_shell_opens_offline(tmp_path: Path,
                                                                        browser: Browser) -> None:
    context = await browser.new_context()
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        async with running(config(tmp_path)) as r:
            await page.goto(f"{r.url}/?token={WEB_TOKEN}")
            await page.wait_for_function(CONTROLLED)
            scope = await page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.scope)")
            assert scope == f"{r.url}/"
            await expect(page.locator("#conn")).to_have_attribute("data-state", "live")
            await expect(page.locator("#offline")).to_have_count(0)
            await page.goto("about:blank")  # its event stream ends, so the server can stop
        await page.goto(f"{r.url}/")  # nothing listens there any more
        await expect(page.locator("#offline")).to_be_visible()
        await expect(page.locator("#offline")).to_contain_text("Offline")
        await expect(page.locator(".brand")).to_contain_text("askbridge")
        await expect(page.locator("html")).to_have_attribute("data-offline", "")
        await expect(page.locator("#notify")).to_have_text("Notify me on this device")
        assert not errors, f"the page threw: {errors}"
    finally:
        await context.close()


async def test_notify_me_subscribes_this_device(tmp_path: Path, browser: Browser) -> None:
    async with fake_push_service() as service, running(config(tmp_path)) as r, \
            r.client() as agent, r.http() as http:
        device = service.browser("chromium")
        async with signed_in(browser, r, permissions=["notifications"]) as page:
            await page.wait_for_function(CONTROLLED)
            control = page.locator("#notify")
            await expect(control).to_have_attribute("data-state", "off")
            await expect(control).to_have_text("Notify me on this device")
            await page.evaluate(STUB_SUBSCRIBE, device.subscription())
            async with page.expect_request(lambda q: q.url.endswith("/ui/api/push/subscriptions")
                                           and q.method == "POST") as sent:
                await control.click()
            request = await sent.value
            assert request.post_data_json == device.subscription()
            assert request.headers["x-askbridge-csrf"]
            await expect(control).to_have_attribute("data-state", "on")
            assert await stored(r) == [subscription_key(device.endpoint)]
            [call] = await page.evaluate("window.subscribeCalls")
            await http.get("/", params={"token": WEB_TOKEN})
            public = (await http.get("/ui/api/push/key")).json()["publicKey"]
            assert call["userVisibleOnly"] is True
            assert base64.b64decode(call["key"]) == base64.urlsafe_b64decode(public + "=")
            created = await agent.create(DEPLOY)
            [shown] = await until(lambda: service.delivered(device))
            assert shown["questionId"] == created["id"]


async def test_the_worker_shows_a_pushed_question_and_takes_it_down_when_closed(
    tmp_path: Path, browser: Browser,
) -> None:
    payload = {"questionId": "q_0000000000000001", "title": "Deploy",
               "body": "Where should I deploy?", "url": "http://x/#assistant/main",
               "actions": [{"action": "answer:0", "title": "Staging"},
                           {"action": "answer:1", "title": "Production"}]}
    shown = """() => navigator.serviceWorker.ready.then((r) => r.getNotifications())
      .then((ns) => ns.map((n) => ({ title: n.title, body: n.body, tag: n.tag,
                                     actions: n.actions.map((a) => a.action) })))"""
    async with running(config(tmp_path)) as r, \
            signed_in(browser, r, permissions=["notifications"]) as page:
        await page.wait_for_function(CONTROLLED)
        cdp = await page.context.new_cdp_session(page)
        versions: list[dict[str, str]] = []
        cdp.on("ServiceWorker.workerVersionUpdated", lambda e: versions.extend(e["versions"]))
        await cdp.send("ServiceWorker.enable")
        registration = await page.evaluate(
            "() => navigator.serviceWorker.ready.then((r) => r.scope)")
        assert registration == f"{r.url}/"
        active = await until(lambda: [v for v in versions if v.get("status") == "activated"])
        push = {"origin": r.url, "registrationId": active[0]["registrationId"]}

        async def deliver(data: object, seen: Callable[[list[object]], bool]) -> list[object]:
            # Once, on a loaded CI machine, a push sent over DevTools never reached the worker
            # (cause not found). A notification replaces its own tag, so pushing again is safe.
            for _ in range(10):
                await cdp.send("ServiceWorker.deliverPushMessage", {**push, "data": json.dumps(data)})
                try:
                    found = await until(lambda: _shown_if(page, shown, seen), timeout=3.0)
                    return list(found[0])
                except AssertionError:
                    continue
            raise AssertionError(f"the worker never showed the push {data!r}")

        notes = await deliver(payload, bool)
        assert notes == [{"title": "Deploy", "body": "Where should I deploy?",
                          "tag": payload["questionId"], "actions": ["answer:0", "answer:1"]}]
        closed = {"questionId": payload["questionId"], "closed": True}
        assert await deliver(closed, lambda notes: notes == []) == []


async def _shown_if(page: object, script: str,
                    seen: Callable[[list[object]], bool]) -> tuple[list[object]] | None:
    """The notifications shown, in a tuple (truthy even when there are none), once `seen` holds."""
    notes: list[object] = await page.evaluate(script)  # type: ignore[attr-defined]
    return (notes,) if seen(notes) else None


async def test_a_reminder_shows_on_the_open_page(tmp_path: Path, browser: Browser) -> None:
    async with running(config(tmp_path)) as r, r.client() as agent, signed_in(browser, r) as page:
        created = await agent.create(DEPLOY)
        await expect(page.locator(".panel")).to_be_visible()
        await expect(page.locator("#conn")).to_have_attribute("data-state", "live")
        prompt = await r.bridge.reads.prompt_for(QuestionId(created["id"]))
        assert prompt is not None
        text = "Reminder: Deploy — still waiting for your answer; expires in 14 min"
        delivery = Delivery(QuestionId(created["id"]), SurfaceId("web"), None)
        await r.bridge.adapters["web"].remind(delivery, Reminder(prompt, text, 1))  # type: ignore[attr-defined]
        notice = page.locator("#reminder")
        await expect(notice).to_have_text(text)
        await notice.click()
        await expect(notice).to_have_count(0)
