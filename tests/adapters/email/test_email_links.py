"""A prompt's mail: text + HTML, a link per choice, threading; the confirm page; the webhook route."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bridge import sign
from tests.adapters.email.rig import INBOUND_SECRET, PERSON, links, mail_rig, part, reply_bytes
from tests.harness import make_config, running, until
from tests.samples import CHECKS, DEPLOY


async def test_a_prompt_is_text_and_html_with_a_link_per_choice(tmp_path: Path) -> None:
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.client() as client:
            qid = (await client.create(DEPLOY))["id"]
            [prompt] = await until(lambda: rig.prompts())
            assert rig.outbox.logins == 1, "logged in (after STARTTLS: the server requires it)"
            text = part(prompt)
            assert "1) Staging (Recommended)" in text and "skip" in text.lower()
            assert set(links(prompt)) == {"Staging (Recommended)", "Production", "Canary", "Skip"}
            assert re.fullmatch(rf"ask\+{qid}-[a-z2-7]{{20}}@example\.org", str(prompt["Reply-To"]))
            assert str(prompt["References"]) == f"<{qid}@example.org>"
            assert prompt["Auto-Submitted"] == "auto-generated"
            delivered = await until(lambda: _delivered(r, qid))
            assert delivered.message_ref == str(prompt["Message-ID"])


async def _delivered(r: Any, qid: str) -> Any:
    rows = await r.bridge.store.deliveries(qid)
    return rows[0] if rows and rows[0].state == "delivered" else None


async def test_the_confirm_page_answers_only_on_post_and_only_once(tmp_path: Path) -> None:
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.client() as client, r.http() as http:
            qid = (await client.create(DEPLOY))["id"]
            [prompt] = await until(lambda: rig.prompts())
            url = links(prompt)["Production"]
            shown = await http.get(url)
            assert shown.status_code == 200
            assert "Where should I deploy?" in shown.text and "Production" in shown.text
            assert '<form method="post">' in shown.text and "<script" not in shown.text
            assert (await client.question(qid))["status"] == "pending", "a GET never answers"
            done = await http.post(url)
            assert done.status_code == 200 and "Thanks, recorded: Production." in done.text
            result = await client.result(qid)
            assert result is not None and result.answer_map() == {"deploy_target": ["Production"]}
            again = await http.post(links(prompt)["Canary"])
            assert again.status_code == 410 and "already ended" in again.text
            assert (await http.get(url)).status_code == 410
            tampered = url[:-1] + ("a" if url[-1] != "a" else "b")
            assert (await http.get(tampered)).status_code == 404


async def test_multiple_choice_opens_the_signed_answer_page_instead_of_guessing(
        tmp_path: Path) -> None:
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.client() as client, r.http() as http:
            qid = (await client.create({"questions": [CHECKS]}))["id"]
            [prompt] = await until(lambda: rig.prompts())
            html = part(prompt, "html")
            assert f'href="{r.url}/#assistant/main"' not in html, "no sign-in needed"
            [page] = re.findall(rf'href="({re.escape(r.url)}/l/[^"]+)"', html)
            assert set(links(prompt)) == {"Skip"}, "no link guesses a multiple choice"
            shown = await http.get(page)
            assert shown.status_code == 200 and 'type="checkbox"' in shown.text
            done = await http.post(page, content=b"q0=0&q0=2&do=submit", headers={
                "content-type": "application/x-www-form-urlencoded"})
            assert done.status_code == 200, done.text
            result = await client.result(qid)
            assert result is not None and result.answer_map() == {"checks": ["Lint", "Build"]}
            record = await r.bridge.store.get_question(qid)
            assert record is not None and record.answered_by is not None
            assert record.answered_by.surface == f"email:{PERSON}"


async def test_skip_from_a_multiple_choice_mail(tmp_path: Path) -> None:
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.client() as client, r.http() as http:
            await client.create({"questions": [CHECKS]})
            [prompt] = await until(lambda: rig.prompts())
            skipped = await http.post(links(prompt)["Skip"])
            assert skipped.status_code == 200 and "Skipped." in skipped.text


async def test_the_signed_webhook_route_takes_a_raw_reply(tmp_path: Path) -> None:
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        async with running(config, rig.env) as r, r.client() as client, r.http() as http:
            qid = (await client.create(DEPLOY))["id"]
            [prompt] = await until(lambda: rig.prompts())
            raw = reply_bytes("apple_en.eml", prompt, "canary")
            route = "/v1/channels/email/inbound"
            headers = {"content-type": "message/rfc822"}
            wrong = await http.post(route, content=raw, headers={
                **headers, "X-Askbridge-Signature": sign("not-the-secret", raw)})
            assert wrong.status_code == 401 and wrong.json()["error"] == "bad_signature"
            as_json = await http.post(route, content=raw, headers={
                "content-type": "application/json",
                "X-Askbridge-Signature": sign(INBOUND_SECRET, raw)})
            assert as_json.status_code == 415
            taken = await http.post(route, content=raw, headers={
                **headers, "X-Askbridge-Signature": sign(INBOUND_SECRET, raw)})
            assert taken.json() == {"accepted": True, "outcome": "answered"}
            result = await client.result(qid)
            assert result is not None and result.answer_map() == {"deploy_target": ["Canary"]}


async def test_a_reminder_replies_in_the_prompts_thread(tmp_path: Path) -> None:
    async with mail_rig() as rig:
        config = make_config(tmp_path, surfaces=[f"email:{PERSON}"], **rig.section)
        agents = [config.agents[0].model_copy(update={"remind_after": [1.0]}), *config.agents[1:]]
        config = config.model_copy(update={"agents": agents})
        async with running(config, rig.env) as r, r.client() as client:
            qid = (await client.create(DEPLOY))["id"]
            [prompt] = await until(lambda: rig.prompts())
            reminder = await until(lambda: [m for m in rig.outbox.to(PERSON) if m is not prompt])
            assert "Reminder: Deploy" in reminder[0].get_content()
            assert reminder[0]["In-Reply-To"] == prompt["Message-ID"]
            assert str(reminder[0]["References"]) == f"<{qid}@example.org> {prompt['Message-ID']}"
            assert reminder[0]["Reply-To"] == prompt["Reply-To"]
