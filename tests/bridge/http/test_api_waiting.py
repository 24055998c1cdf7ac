"""What waits, and why a second ask is refused: the 409's pending id, the agent's own pending
list page by page (and its OpenAPI entry), the 202's warnings for what was cut; re-attaching
with `attach=true` and waiting for a question by id."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.bridge.mcp.new_host import answer_remotely
from tests.harness import AGENT_TOKEN, SUB_TOKEN, make_config, running
from tests.samples import DEPLOY

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}


def asking(question: str, header: str = "Deploy") -> dict[str, Any]:
    return {"questions": [{**DEPLOY["questions"][0], "question": question, "header": header}]}


async def test_a_409_names_the_pending_question_and_how_to_cancel_it(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        first = (await http.post("/v1/sessions/main/questions", json=DEPLOY, headers=AUTH)).json()
        second = await http.post("/v1/sessions/main/questions", json=asking("Which region?"),
                                 headers=AUTH)
    assert second.status_code == 409
    body = second.json()
    assert body["pendingId"] == first["id"]
    msg = body["details"][0]["msg"]
    assert first["id"] in msg and f"askbridge cancel {first['id']}" in msg
    assert f"/v1/questions/{first['id']}/cancel" in msg


async def test_pending_lists_only_the_agents_own_newest_first_by_pages(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    async with running(config) as r, r.http() as http:
        ids = [(await http.post(f"/v1/sessions/s{n}/questions", json=asking(f"Q{n}?"),
                                headers=AUTH)).json()["id"] for n in range(3)]
        await http.post(f"/v1/questions/{ids[0]}/cancel", headers=AUTH)
        ids = [(await http.post("/v1/sessions/s3/questions", json=asking("Q3?"),
                                headers=AUTH)).json()["id"], *ids[1:]]
        ids = [ids[0], ids[2], ids[1]]  # newest first: s3, s2, s1
        first = (await http.get("/v1/questions", params={"status": "pending", "limit": 2},
                                headers=AUTH)).json()
        rest = (await http.get("/v1/questions", params={
            "status": "pending", "limit": 2, "cursor": first["nextCursor"]},
            headers=AUTH)).json()
        other = await http.get("/v1/questions?status=pending",
                               headers={"Authorization": f"Bearer {SUB_TOKEN}"})
        answered = await http.get("/v1/questions?status=answered", headers=AUTH)
        bad_cursor = await http.get("/v1/questions?cursor=nope", headers=AUTH)
        spec = (await http.get("/openapi.json")).json()
    assert [q["id"] for q in first["questions"]] == ids[:2]
    assert [q["id"] for q in rest["questions"]] == ids[2:] and rest["nextCursor"] is None
    assert all(q["status"] == "pending" for q in first["questions"] + rest["questions"])
    assert other.status_code == 200 and other.json()["questions"] == []
    assert answered.status_code == 422 and "timeline" in answered.json()["details"][0]["msg"]
    assert bad_cursor.status_code == 422
    listed = spec["paths"]["/v1/questions"]["get"]
    assert set(listed["responses"]) == {"200", "401", "405", "422"}
    assert listed["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/QuestionList"}
    assert {p["name"] for p in listed["parameters"]} == {"status", "limit", "cursor"}
    assert listed["security"] == [{"bearer": []}]


async def test_a_cut_header_is_a_warning_in_the_202(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        cut = await http.post("/v1/sessions/a/questions", headers=AUTH,
                              json=asking("Go?", header="Deployment target"))
        kept = await http.post("/v1/sessions/b/questions", headers=AUTH, json=asking("Go?"))
        spec = (await http.get("/openapi.json")).json()
    assert cut.json()["warnings"] == [{
        "loc": "questions[0].header",
        "msg": "Cut to 'Deployment t': a header shows at most 12 characters."}]
    assert "warnings" not in kept.json()
    assert "warnings" in spec["components"]["schemas"]["Created"]["properties"]


async def test_create_with_attach_is_the_pending_question_with_its_own_times(
        tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        first = (await http.post("/v1/sessions/main/questions", json=DEPLOY, headers=AUTH)).json()
        again = await http.post("/v1/sessions/main/questions", params={"attach": "true"},
                                json={**DEPLOY, "timeoutSeconds": 60}, headers=AUTH)
        other = await http.post("/v1/sessions/main/questions", params={"attach": "true"},
                                json=asking("Which region?"), headers=AUTH)
        bad = await http.post("/v1/sessions/main/questions", params={"attach": "maybe"},
                              json=DEPLOY, headers=AUTH)
    assert again.status_code == 202
    assert {k: again.json()[k] for k in ("id", "createdAt", "expiresAt")} == {
        k: first[k] for k in ("id", "createdAt", "expiresAt")}  # its own deadline, not 60 s
    assert other.status_code == 409 and other.json()["pendingId"] == first["id"]
    assert bad.status_code == 422 and bad.json()["details"][0]["loc"] == "query.attach"


async def test_wait_blocks_for_the_agents_own_question_only(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        asked = (await http.post("/v1/sessions/main/questions", json=DEPLOY, headers=AUTH)).json()
        sub = await http.post(f"/v1/questions/{asked['id']}/wait",
                              headers={"Authorization": f"Bearer {SUB_TOKEN}"})
        answering = asyncio.create_task(answer_remotely(r, "canary"))
        waited = await http.post(f"/v1/questions/{asked['id']}/wait", headers=AUTH)
        await answering
        after = await http.post(f"/v1/questions/{asked['id']}/wait", headers=AUTH)
    assert sub.status_code == 404
    assert waited.json()["answers"]["answers"]["deploy_target"]["answers"] == ["Canary"]
    assert after.json() == waited.json()
