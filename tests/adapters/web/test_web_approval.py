"""The web approval card in Chromium and over the UI's API: the action, tool, risk and arguments
in full (readable on a phone), Approve, Reject with a reason, Edit validated against the schema
with the problems inline, Allow for 1 h with its scope, the rules list with Revoke, Indonesian,
and Web Push with Approve / Reject bound to the payload it showed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, expect

from tests.adapters.web.browser import PHONE, signed_in
from tests.adapters.web.support import config, login, same_origin, subscribed
from tests.fakes.push import fake_push_service
from tests.harness import AGENT_TOKEN, Running, running, until

LONG = "--selector=app.kubernetes.io/name=web,tier=frontend," + "x" * 120
SCALE: dict[str, Any] = {
    "action": "Scale the web deployment", "tool": "kubectl_scale", "risk": "high",
    "arguments": {"deployment": "web", "replicas": 3, "flags": LONG},
    "argumentsSchema": {"type": "object", "required": ["deployment", "replicas"],
                        "properties": {"deployment": {"type": "string"},
                                       "replicas": {"type": "integer", "minimum": 1,
                                                    "maximum": 10}}}}


async def request_approval(r: Running, body: dict[str, Any] = SCALE,
                           session: str = "main") -> str:
    async with r.http() as http:
        response = await http.post(f"/v1/sessions/{session}/approvals", json=body,
                                   headers={"authorization": f"Bearer {AGENT_TOKEN}"})
    assert response.status_code == 202, response.text
    return str(response.json()["id"])


async def record(r: Running, approval_id: str) -> dict[str, Any]:
    async with r.http() as http:
        response = await http.get(f"/v1/approvals/{approval_id}",
                                  headers={"authorization": f"Bearer {AGENT_TOKEN}"})
    found: dict[str, Any] = response.json()
    return found


async def decided(r: Running, approval_id: str) -> dict[str, Any]:
    async def ended() -> dict[str, Any] | None:
        found = await record(r, approval_id)
        return found if found["status"] != "pending" else None
    return dict((await until(ended))["result"])


# the UI's API ---------------------------------------------------------------------------------

async def test_decisions_are_bound_to_the_payload_and_edits_to_the_schema(tmp_path: Path) -> None:
    async with running(config(tmp_path)) as r, r.http() as http:
        csrf = await login(r, http)
        approval_id = await request_approval(r)
        state = (await http.get("/ui/api/state")).json()
        card = state["pending"][0]["approval"]
        assert card["action"] == SCALE["action"] and card["risk"] == "high"
        assert card["arguments"] == SCALE["arguments"] and card["allowEdit"] is True
        path = f"/ui/api/approvals/{approval_id}/decision"

        stale = await http.post(path, json={"decision": "approve", "hash": "0" * 64},
                                headers=same_origin(r, csrf))
        assert stale.status_code == 422 and "out of date" in stale.json()["message"]
        edit = {"decision": "approve", "hash": card["hash"],
                "arguments": {"deployment": "web", "replicas": 50}}
        wrong = await http.post(path, json=edit, headers=same_origin(r, csrf))
        assert wrong.status_code == 422
        assert [d["loc"] for d in wrong.json()["details"]] == ["arguments.replicas"]
        bare = await http.post(path, json={"decision": "reject", "hash": card["hash"]},
                               headers=same_origin(r, csrf))
        assert bare.status_code == 422, "a rejection needs its reason"
        assert (await record(r, approval_id))["votes"] == []

        done = await http.post(path, json={"decision": "reject", "hash": card["hash"],
                                           "reason": "Not during the freeze"},
                               headers=same_origin(r, csrf))
        assert done.status_code == 200 and done.json()["ended"] is True
        assert (await decided(r, approval_id)) == {
            "status": "rejected", "reason": "Not during the freeze",
            "decidedBy": [{"surface": "web", "user": "web"}]}
        late = await http.post(path, json={"decision": "approve", "hash": card["hash"]},
                               headers=same_origin(r, csrf))
        assert late.status_code == 409


async def test_push_offers_approve_and_reject_for_the_payload_shown(tmp_path: Path) -> None:
    async with fake_push_service() as service, running(config(tmp_path)) as r, r.http() as http:
        phone = service.browser("phone")
        csrf = await subscribed(r, http, phone)
        approval_id = await request_approval(r)
        [shown] = await until(lambda: service.delivered(phone))
        assert shown["questionId"] == approval_id and shown["body"].startswith(SCALE["action"])
        assert [a["action"] for a in shown["actions"]] == ["approve", "reject"]
        assert [a["title"] for a in shown["actions"]] == ["Approve", "Reject"]
        tap = f"/ui/api/questions/{approval_id}/action"
        old = await http.post(tap, json={"action": "approve", "hash": "a" * 64},
                              headers=same_origin(r, csrf))
        assert old.status_code == 422, "a notification about other arguments decides nothing"
        ok = await http.post(tap, json={"action": "approve", "hash": shown["hash"]},
                             headers=same_origin(r, csrf))
        assert ok.status_code == 200
        result = await decided(r, approval_id)
        assert result["status"] == "approved" and result["arguments"] == SCALE["arguments"]
        closed = {"questionId": approval_id, "closed": True}
        await until(lambda: closed in service.delivered(phone))


# Chromium -------------------------------------------------------------------------------------

async def test_the_card_edits_with_problems_inline_then_approves(tmp_path: Path,
                                                                 browser: Browser) -> None:
    async with running(config(tmp_path)) as r, signed_in(browser, r) as page:
        approval_id = await request_approval(r)
        card = page.locator(".approval")
        await expect(card.locator("h2")).to_have_text(SCALE["action"])
        await expect(card.locator(".risk")).to_have_text("High risk")
        await expect(card.locator(".ap-tool code")).to_have_text("kubectl_scale")
        await expect(card.locator(".ap-args")).to_contain_text('"replicas": 3')
        await card.get_by_role("button", name="Edit").click()
        editor = card.get_by_label("Edit the arguments (JSON)")
        await expect(editor).to_be_focused()
        await editor.fill('{"deployment": "web", "replicas": 50}')
        await card.get_by_role("button", name="Approve edited").click()
        await expect(card.locator(".ap-errors li")).to_contain_text("arguments.replicas")
        await expect(editor).to_have_attribute("aria-invalid", "true")
        await editor.fill("{oops")
        await card.get_by_role("button", name="Approve edited").click()
        await expect(card.locator(".error")).to_contain_text("not valid JSON")
        await editor.fill('{"deployment": "web", "replicas": 5}')
        await editor.press("Control+Enter")
        result = await decided(r, approval_id)
        assert result["status"] == "approved" and result["edited"] is True
        assert result["arguments"] == {"deployment": "web", "replicas": 5}
        await expect(card).to_have_count(0)
        entry = page.locator(".entry").last
        await expect(entry.locator(".reply-label")).to_have_text("Approved by web")
        await expect(entry.locator(".sum-line")).to_have_text("with edited arguments")


async def test_the_keyboard_alone_rejects_with_a_reason(tmp_path: Path,
                                                        browser: Browser) -> None:
    async with running(config(tmp_path)) as r, signed_in(browser, r) as page:
        approval_id = await request_approval(r)
        card = page.locator(".approval")
        await expect(card).to_be_visible()
        await card.get_by_role("button", name="Reject").focus()
        await page.keyboard.press("Enter")
        reason = card.get_by_label("Reason")
        await expect(reason).to_be_focused()
        await page.keyboard.press("Enter")  # empty: the card says why, nothing is sent
        await expect(card.locator(".error")).to_have_text("Say why, so the agent can do better.")
        await page.keyboard.type("Not during the freeze")
        await page.keyboard.press("Enter")
        assert (await decided(r, approval_id))["reason"] == "Not during the freeze"


async def test_allow_for_an_hour_lists_a_rule_that_can_be_revoked(tmp_path: Path,
                                                                  browser: Browser) -> None:
    async with running(config(tmp_path)) as r, signed_in(browser, r) as page:
        approval_id = await request_approval(r)
        card = page.locator(".approval")
        await card.get_by_role("button", name="Allow for 1 h").click()
        await card.get_by_label("kubectl_scale with any arguments").check()
        await card.locator(".panel-foot").get_by_role("button", name="Allow for 1 h").click()
        assert (await decided(r, approval_id))["status"] == "approved"
        again = await request_approval(r, {**SCALE, "arguments": {"deployment": "api",
                                                                  "replicas": 2}})
        assert (await record(r, again))["result"]["scope"] == "rule"
        await page.get_by_role("button", name="Allow rules").click()
        dialog = page.get_by_role("dialog", name="Allow rules")
        await expect(dialog.locator(".rule")).to_have_count(1)
        await expect(dialog.locator(".rule")).to_contain_text("kubectl_scale · any arguments")
        await dialog.get_by_role("button", name="Revoke the rule for kubectl_scale").click()
        await expect(dialog.locator(".rule")).to_have_count(0)
        await page.keyboard.press("Escape")
        await expect(dialog).to_have_count(0)
        third = await request_approval(r)
        assert (await record(r, third))["status"] == "pending", "revoked: asked again"


async def test_on_a_phone_in_indonesian_the_arguments_wrap(tmp_path: Path,
                                                           browser: Browser) -> None:
    async with running(config(tmp_path)) as r, signed_in(
            browser, r, PHONE, is_mobile=True, has_touch=True, locale="id-ID") as page:
        await request_approval(r)
        card = page.locator(".approval")
        await expect(card.get_by_role("button", name="Setujui")).to_be_visible()
        await expect(card.locator(".risk")).to_have_text("Risiko tinggi")
        for name in ("Tolak", "Ubah"):
            await expect(card.get_by_role("button", name=name, exact=True)).to_be_visible()
        args = card.locator(".ap-args")
        await expect(args).to_contain_text(LONG[:40])
        wide = await args.evaluate("el => [el.scrollWidth, el.clientWidth]")
        assert wide[0] <= wide[1], f"the arguments scroll sideways on a phone: {wide}"
        box = await card.get_by_role("button", name="Setujui").bounding_box()
        assert box is not None and box["height"] >= 44
        assert re.search(r"monospace|Mono", await args.evaluate(
            "el => getComputedStyle(el).fontFamily"))


async def test_a_notifications_reject_opens_the_card_asking_why(tmp_path: Path,
                                                              browser: Browser) -> None:
    """What sw.js opens for an approval notification's Reject: `<panel url>/reject`."""
    async with running(config(tmp_path)) as r, signed_in(browser, r) as page:
        await request_approval(r)
        await expect(page.locator(".approval")).to_be_visible()
        await page.goto(f"{r.url}/#assistant/main/reject")
        reason = page.locator(".approval").get_by_label("Reason")
        await expect(reason).to_be_visible()
        await expect(reason).to_be_focused()
        assert page.url.endswith("#assistant/main"), "the address is the panel's again"
