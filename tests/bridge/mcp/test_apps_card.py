"""The question card in Debian's Chromium, embedded as an MCP Apps host does: a sandboxed
iframe in the host's page, speaking the `ui/*` postMessage protocol, its `tools/call` proxied by
the host to /mcp with the agent's token. The person answers with the keyboard alone."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Frame, expect

from bridge.mcp.apps import CARD_URI
from tests.adapters.web.browser import WAIT_MS
from tests.bridge.mcp.apps_host import APPS
from tests.bridge.mcp_wire import call, headers, messages, open_session, rpc
from tests.harness import AGENT_TOKEN, make_config, running, until
from tests.samples import BOTH

HOST_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>test host</title></head><body>
<iframe id="card" title="askbridge" sandbox="allow-scripts" style="width:680px;height:640px"></iframe>
<script>
const frame = document.getElementById("card");
window.seen = [];
const toCard = (message) => frame.contentWindow.postMessage({ jsonrpc: "2.0", ...message }, "*");
window.addEventListener("message", async (ev) => {
  if (ev.source !== frame.contentWindow) return;
  const m = ev.data;
  window.seen.push(m.method || "response");
  if (m.method === "ui/initialize") {
    toCard({ id: m.id, result: { protocolVersion: "2026-01-26",
      hostInfo: { name: "test-host", version: "1" }, hostCapabilities: { serverTools: {} },
      hostContext: { locale: window.hostLocale, theme: "light", displayMode: "inline" } } });
  } else if (m.method === "ui/notifications/initialized") {
    toCard({ method: "ui/notifications/tool-input", params: { arguments: window.toolInput } });
  } else if (m.method === "tools/call") {
    toCard({ id: m.id, ...(await window.hostCall(m.params)) });
  }
});
window.show = (html, input, locale) => {
  window.toolInput = input;
  window.hostLocale = locale;
  frame.srcdoc = html;
};
window.toolResult = (result) => toCard({ method: "ui/notifications/tool-result", params: result });
</script></body></html>"""


async def card_frame(page: Any) -> Frame:
    frame = await until(lambda: page.frame(url="about:srcdoc"))
    assert isinstance(frame, Frame)
    return frame


async def test_the_card_in_a_host_page_is_answered_with_the_keyboard(
        tmp_path: Path, browser: Browser) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        sid = await open_session(http, AGENT_TOKEN, APPS)
        tools = {t["name"]: t for t in
                 (await rpc(http, AGENT_TOKEN, sid, "tools/list", {}))["result"]["tools"]}
        uri = tools["ask_user"]["_meta"]["ui"]["resourceUri"]
        assert uri == CARD_URI
        html = (await rpc(http, AGENT_TOKEN, sid, "resources/read",
                          {"uri": uri}))["result"]["contents"][0]["text"]
        asking = asyncio.create_task(http.post("/mcp", headers=headers(AGENT_TOKEN, sid),
                                               content=call("ask_user", BOTH), timeout=60))
        await until(lambda: r.bridge.store.pending_questions())
        calls: list[str] = []

        async def host_call(params: dict[str, Any]) -> dict[str, Any]:
            """The host's side of the card's tools/call: app-visible tools only, then /mcp."""
            calls.append(params["name"])
            visibility = tools.get(params["name"], {}).get("_meta", {}).get("ui", {}).get(
                "visibility", ["model", "app"])
            if "app" not in visibility:
                return {"error": {"code": -32601, "message": "not callable by apps"}}
            reply = await rpc(http, AGENT_TOKEN, sid, "tools/call", params, 7)
            return {k: reply[k] for k in ("result", "error") if k in reply}

        context = await browser.new_context()
        context.set_default_timeout(WAIT_MS)
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        try:
            await page.expose_function("hostCall", host_call)
            await page.set_content(HOST_PAGE)
            await page.evaluate("([html, input]) => window.show(html, input, 'id-ID')",
                                [html, BOTH])
            card = await card_frame(page)
            # In Indonesian, from the host's locale; every control has its accessible name.
            canary = card.get_by_role("radio", name="Canary")
            await expect(canary).to_be_visible()
            await expect(card.get_by_role("group", name="Deploy Where should I deploy?")
                         ).to_be_visible()
            await expect(card.get_by_role("button", name="Kirim")).to_be_visible()
            await expect(card.get_by_role("textbox", name="Jawaban lain untuk Checks")
                         ).to_be_visible()
            # Nothing chosen yet: the refusal is read out, in the card's language.
            await card.get_by_role("button", name="Kirim").focus()
            await page.keyboard.press("Enter")
            await expect(card.get_by_role("alert")).to_contain_text("Deploy: pilih")
            # Keyboard only: arrows through the radios, Tab to the checkboxes, Space, type, Enter.
            await card.get_by_role("radio", name="Staging (Recommended)").focus()
            await page.keyboard.press("ArrowDown")
            await page.keyboard.press("ArrowDown")
            await expect(canary).to_be_checked()
            await page.keyboard.press("Tab")  # the first question's own-words field
            await page.keyboard.press("Tab")
            await page.keyboard.press("Space")
            await expect(card.get_by_role("checkbox", name="Lint")).to_be_checked()
            await page.keyboard.press("Tab")
            await page.keyboard.press("Tab")
            await page.keyboard.press("Tab")
            await page.keyboard.type("my own check")
            await page.keyboard.press("Enter")
            result = messages(await asyncio.wait_for(asking, 10))[-1]["result"]
            assert result["structuredContent"] == {"status": "answered", "answers": {"answers": {
                "deploy_target": {"answers": ["Canary"]},
                "checks": {"answers": ["Lint", "my own check"]}}}}
            assert calls == ["answer_question", "answer_question"]
            await page.evaluate("(result) => window.toolResult(result)", result)
            await expect(card.get_by_role("status")).to_have_text("Dijawab")
            await expect(card.get_by_role("button", name="Kirim")).to_be_disabled()
            seen = await page.evaluate("window.seen")
            assert seen[:2] == ["ui/initialize", "ui/notifications/initialized"], json.dumps(seen)
            assert not errors, errors
        finally:
            await context.close()

