"""Review findings on approvals, end to end over the webhook channel: who may decide, what a
rule allows later, and what a text reply decides."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.adapters.webhook.approval_support import (
    AUTH,
    DEPLOY,
    PEOPLE,
    approvals,
    asked,
    bridge,
    reply,
)
from tests.fakes.gateway import Gateway


async def test_the_requesting_agent_cannot_approve_its_own_approval(tmp_path: Path) -> None:
    """The approval's id is its backing question's: the agent's own host-answer route must not
    be a way to decide it (no policy: one approval from any answerer decides)."""
    async with bridge(tmp_path) as (_, gw, http):
        call = await asked(http, gw)
        approval_id = approvals(gw)[0]["questionId"]
        own = await http.post(f"/v1/questions/{approval_id}/host-answer", headers=AUTH,
                              json={"answers": {"decision": ["Approve"]}})
        assert own.status_code in (200, 403, 404, 409), own.text
        assert not (own.status_code == 200 and own.json()["accepted"]), own.text
        record = (await http.get(f"/v1/approvals/{approval_id}", headers=AUTH)).json()
        assert record["status"] == "pending", record
        assert not call.done()
        await http.post(f"/v1/approvals/{approval_id}/cancel", headers=AUTH)
        await call


async def test_audit_paging_with_a_huge_after_is_not_a_500(tmp_path: Path) -> None:
    async with bridge(tmp_path) as (_, _gw, http):
        for query in ("after=99999999999999999999", "limit=99999999999999999999",
                      "after=-99999999999999999999", "since=0001-01-01T00:00:00%2B14:00"):
            got = await http.get(f"/v1/audit?{query}", headers=AUTH)
            assert got.status_code in (200, 422), (query, got.status_code, got.text)
        for query in ("wait=1e400", "wait=nan", "wait=-inf"):
            got = await http.get(f"/v1/approvals/q_nope/result?{query}", headers=AUTH)
            assert got.status_code in (404, 422), (query, got.status_code, got.text)
        got = await http.get("/v1/sessions/main/approvals?limit=99999999999999999999",
                             headers=AUTH)
        assert got.status_code in (200, 422), got.text


async def _allowed(http: httpx.AsyncClient, gw: Gateway, body: dict[str, Any],
                   *voters: tuple[str, str]) -> None:
    """`body` asked and decided by `voters` ((text, sender) each), the last one deciding."""
    call = await asked(http, gw, body)
    for text, sender in voters:
        assert (await reply(http, text, sender=sender))["accepted"] is True, (text, sender)
    assert (await call).json()["status"] == "approved"


async def _still_asked(http: httpx.AsyncClient, body: dict[str, Any]) -> None:
    """`body` is not approved at once: it waits for people (then it is cancelled)."""
    created = await http.post("/v1/sessions/main/approvals", json=body, headers=AUTH)
    assert created.status_code == 202, created.text
    assert created.json()["status"] == "pending", created.json()
    await http.post(f"/v1/approvals/{created.json()['id']}/cancel", headers=AUTH)


async def test_a_rule_without_a_tool_allows_only_the_same_action(tmp_path: Path) -> None:
    """Without a tool and arguments, only the action says what is allowed: "Allow for 1 h" on
    one action must not approve every other tool-less action of the agent."""
    restart: dict[str, Any] = {"action": "Restart the staging server"}
    async with bridge(tmp_path) as (_, gw, http):
        await _allowed(http, gw, restart, ("3", "+100"))
        again = await http.post("/v1/sessions/main/approve", json=restart, headers=AUTH)
        assert again.json()["scope"] == "rule"
        await _still_asked(http, {"action": "Drop the production database"})


async def test_a_rule_from_a_lighter_policy_does_not_skip_a_quorum(tmp_path: Path) -> None:
    """One answerer allowed a low-risk call (no policy); the same call at high risk needs two
    approvers, and a rule one person made must not stand in for them."""
    policy = {"tool": "deploy", "risk": "high", "approvers": ["ana", "budi", "cita"],
              "required": 2}
    async with bridge(tmp_path, people=PEOPLE, approvals=[policy]) as (_, gw, http):
        await _allowed(http, gw, {**DEPLOY, "risk": "low"}, ("3", "+100"))
        await _still_asked(http, DEPLOY)


async def test_one_approver_alone_cannot_turn_a_quorum_into_a_rule(tmp_path: Path) -> None:
    """2 of 3: ana allows for 1 h, budi approves this once. Later calls still need two."""
    policy = {"tool": "deploy", "approvers": ["ana", "budi", "cita"], "required": 2}
    async with bridge(tmp_path, people=PEOPLE, approvals=[policy]) as (_, gw, http):
        await _allowed(http, gw, DEPLOY, ("3", "+100"), ("approve", "+101"))
        await _still_asked(http, DEPLOY)
        assert (await http.get("/v1/rules", headers=AUTH)).json()["rules"] == []
        call = await asked(http, gw, DEPLOY)  # the deciding "Allow" alone: approved once
        assert (await reply(http, "approve"))["accepted"] is True
        told = await reply(http, "3", sender="+101")
        assert told == {"accepted": True, "reply": "Approved."}, told
        assert (await call).json()["status"] == "approved"
        await _still_asked(http, DEPLOY)
        await _allowed(http, gw, DEPLOY, ("3", "+100"), ("3", "+101"))  # both allow: a rule
        again = await http.post("/v1/sessions/main/approve", json=DEPLOY, headers=AUTH)
        assert again.json()["scope"] == "rule"


async def test_approve_with_more_words_is_not_an_approval(tmp_path: Path) -> None:
    """`approve only on staging` or `1 question first` is not a plain approval: it gets the
    help line, as `allow everything forever` does, and counts for nothing."""
    async with bridge(tmp_path) as (_, gw, http):
        call = await asked(http, gw)
        for text in ("approve only on staging, not production", "1 question first: why 3?",
                     "Setuju kalau staging saja"):
            told = await reply(http, text)
            assert told["accepted"] is False, (text, told)
        assert not call.done()
        assert (await reply(http, "approve."))["accepted"] is True
        assert (await call).json()["status"] == "approved"
