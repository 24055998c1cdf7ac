"""The signed answer page `/l/{token}` over HTTP on a served bridge: questions, approvals, and
what it refuses (forged links, ended questions, people who may not answer)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bridge import QuestionId, SurfaceId, UserRef
from tests.harness import AGENT_TOKEN, Running, make_config, running
from tests.samples import BOTH, DEPLOY

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}
SMS = SurfaceId("webhook:sms:+100")
ACTION: dict[str, Any] = {"action": "Delete the staging database", "tool": "db.drop",
                          "arguments": {"db": "staging"},
                          "argumentsSchema": {"type": "object", "required": ["db"],
                                              "properties": {"db": {"enum": ["staging", "dev"]}}}}


async def link(r: Running, qid: str, user: str = "+100", surface: SurfaceId = SMS) -> str:
    url = await r.bridge.reads.card_link(QuestionId(qid), surface, UserRef(user))
    assert url is not None and url.startswith(f"{r.url}/l/")
    return url


def hidden_hash(page: str) -> str:
    found = re.search(r'name="hash" value="([0-9a-f]+)"', page)
    assert found is not None
    return found[1]


async def test_a_single_select_is_shown_on_get_and_answered_only_by_post(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as client, r.http() as http:
        qid = (await client.create(DEPLOY))["id"]
        url = await link(r, qid)
        shown = await http.get(url)
        assert shown.status_code == 200 and "Where should I deploy?" in shown.text
        assert 'type="radio" name="q0" value="1"' in shown.text and "<script" not in shown.text
        assert shown.headers["cache-control"] == "no-store"
        assert shown.headers["referrer-policy"] == "no-referrer"
        assert shown.headers["x-frame-options"] == "DENY"
        assert "default-src 'none'" in shown.headers["content-security-policy"]
        assert '<label class="text" for="t0">' in shown.text, "labelled free text"
        assert (await client.question(qid))["status"] == "pending", "a GET never answers"
        done = await http.post(url, data={"q0": "1", "t0": "", "do": "submit"})
        assert done.status_code == 200 and "Thank you" in done.text
        result = await client.result(qid)
        assert result is not None and result.answer_map() == {"deploy_target": ["Production"]}
        again = await http.post(url, data={"q0": "2", "do": "submit"})
        assert again.status_code == 410
        assert (await http.get(url)).status_code == 410


async def test_several_questions_with_multi_select_and_free_text(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as client, r.http() as http:
        qid = (await client.create(BOTH))["id"]
        url = await link(r, qid)
        shown = (await http.get(url)).text
        assert 'type="checkbox" name="q1" value="2"' in shown
        half = await http.post(url, data={"q0": "0", "do": "submit"})
        assert half.status_code == 422 and 'class="said"' in half.text, "the core's sentence"
        assert (await client.question(qid))["status"] == "pending"
        done = await http.post(url, content=b"q0=0&q1=0&q1=2&t1=and+docs&do=submit",
                               headers={"content-type": "application/x-www-form-urlencoded"})
        assert done.status_code == 200, done.text
        result = await client.result(qid)
        assert result is not None and result.answer_map() == {
            "deploy_target": ["Staging (Recommended)"], "checks": ["Lint", "Build", "and docs"]}


async def test_skip_forged_and_refused_links(tmp_path: Path) -> None:
    sms = {"sms": {"secret_env": "HOOK_SECRET", "answerers": ["+100"]}}
    async with running(make_config(tmp_path, webhooks=sms)) as r, r.client() as client, \
            r.http() as http:
        qid = (await client.create(DEPLOY))["id"]
        stranger = await http.post(await link(r, qid, user="+999"),
                                   data={"q0": "0", "do": "submit"})
        assert stranger.status_code == 422 and (await client.question(qid))["status"] == "pending"
        elsewhere = await http.post(await link(r, qid, user="owner", surface=SurfaceId("web")),
                                    data={"q0": "0", "do": "submit"})
        assert elsewhere.status_code == 404, "a surface the question was never sent to"
        assert (await client.question(qid))["status"] == "pending"
        url = await link(r, qid)
        forged = url[:-2] + ("AA" if not url.endswith("AA") else "BB")
        for method in ("GET", "POST"):
            bad = await http.request(method, forged)
            assert bad.status_code == 404 and "not valid" in bad.text
        other = await link(r, qid.replace("q_", "q_x") if qid.startswith("q_") else "q_other")
        assert (await http.get(other)).status_code == 410, "a link to no open question"
        skipped = await http.post(url, data={"do": "skip"})
        assert skipped.status_code == 200
        assert (await client.question(qid))["status"] == "no_answer"


async def test_an_approval_approve_reject_and_edit(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        aid = (await http.post("/v1/sessions/main/approvals", json=ACTION,
                               headers=AUTH)).json()["id"]
        url = await link(r, aid)
        shown = (await http.get(url)).text
        assert "Delete the staging database" in shown and "db.drop" in shown
        assert "&quot;db&quot;: &quot;staging&quot;" in shown
        digest = hidden_hash(shown)
        assert f"Payload: #{digest[:12]}" in shown and "Risk" in shown
        for bare in ({"hash": digest}, {"decision": "approve"}, {"decision": "yes", "hash": digest}):
            refused = await http.post(url, data=bare)
            assert refused.status_code == 422 and "Press Approve" in refused.text, bare
        stale = await http.post(url, data={"decision": "approve", "hash": "f" * 64})
        assert stale.status_code == 422 and "out of date" in stale.text
        no_reason = await http.post(url, data={"decision": "reject", "hash": digest,
                                               "reason": " "})
        assert no_reason.status_code == 422 and 'class="said"' in no_reason.text
        wrong = '{"db": "production"}'
        edited = await http.post(url, data={"decision": "edit", "hash": digest,
                                            "arguments": wrong})
        assert edited.status_code == 422 and 'class="problem"' in edited.text
        assert "{&quot;db&quot;: &quot;production&quot;}" in edited.text, "the text is kept"
        done = await http.post(url, data={"decision": "edit", "hash": digest,
                                          "arguments": '{"db": "dev"}'})
        assert done.status_code == 200, done.text
        result = (await http.get(f"/v1/approvals/{aid}/result", headers=AUTH)).json()
        assert result["status"] == "approved" and result["arguments"] == {"db": "dev"}


async def test_an_approval_rejected_with_a_reason(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        aid = (await http.post("/v1/sessions/main/approvals", json=ACTION,
                               headers=AUTH)).json()["id"]
        url = await link(r, aid)
        digest = hidden_hash((await http.get(url)).text)
        done = await http.post(url, data={"decision": "reject", "hash": digest,
                                          "reason": "wrong database"})
        assert done.status_code == 200
        result = (await http.get(f"/v1/approvals/{aid}/result", headers=AUTH)).json()
        assert result["status"] == "rejected" and result["reason"] == "wrong database"


async def test_the_page_speaks_the_question_s_language(tmp_path: Path) -> None:
    sms = {"sms": {"secret_env": "HOOK_SECRET", "locale": "id"}}
    async with running(make_config(tmp_path, webhooks=sms)) as r, r.client() as client, \
            r.http() as http:
        qid = (await client.create(DEPLOY))["id"]
        shown = (await http.get(await link(r, qid))).text
        assert '<html lang="id">' in shown and "Atau dengan kata-kata Anda sendiri" in shown
        assert ">Lewati</button>" in shown


async def test_an_approval_allowed_for_an_hour(tmp_path: Path) -> None:
    """Allow for 1 h, as every surface's button: approves now, bound to the hash the page showed,
    and creates the rule for these arguments, which approves the same call next time."""
    async with running(make_config(tmp_path)) as r, r.http() as http:
        aid = (await http.post("/v1/sessions/main/approvals", json=ACTION,
                               headers=AUTH)).json()["id"]
        url = await link(r, aid)
        shown = (await http.get(url)).text
        assert 'name="decision" value="allow">Allow for 1 h</button>' in shown
        assert "<script" not in shown
        digest = hidden_hash(shown)
        stale = await http.post(url, data={"decision": "allow", "hash": "f" * 64})
        assert stale.status_code == 422 and "out of date" in stale.text
        assert (await http.get("/v1/rules", headers=AUTH)).json()["rules"] == []
        done = await http.post(url, data={"decision": "allow", "hash": digest})
        assert done.status_code == 200 and "allowed for 1 hour" in done.text, done.text
        result = (await http.get(f"/v1/approvals/{aid}/result", headers=AUTH)).json()
        assert result["status"] == "approved" and result["arguments"] == {"db": "staging"}
        rules = (await http.get("/v1/rules", headers=AUTH)).json()["rules"]
        assert len(rules) == 1 and rules[0]["tool"] == "db.drop"
        assert rules[0]["anyArguments"] is False
        again = await http.post("/v1/sessions/main/approve", json=ACTION, headers=AUTH)
        assert again.json()["scope"] == "rule"


async def test_the_approval_page_speaks_the_surface_s_language(tmp_path: Path) -> None:
    sms = {"sms": {"secret_env": "HOOK_SECRET", "locale": "id"}}
    async with running(make_config(tmp_path, webhooks=sms)) as r, r.http() as http:
        aid = (await http.post("/v1/sessions/main/approvals", json=ACTION,
                               headers=AUTH)).json()["id"]
        shown = (await http.get(await link(r, aid))).text
        assert '<html lang="id">' in shown and ">Setujui</button>" in shown
        assert 'value="allow">Izinkan 1 jam</button>' in shown and "<dt>Risiko</dt>" in shown
