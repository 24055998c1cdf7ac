"""Approvals on every button surface, through the real libraries against the fakes: Approve,
Reject with a reason, Edit (validated against the schema), a stale payload refused, a stranger
refused, expiry — and each prompt finalized with who decided."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bridge.store import now_ms
from tests.adapters.drivers import Driver, driver
from tests.adapters.drivers.approvals import Approver, approver
from tests.adapters.edit_support import request_approval
from tests.harness import AGENT_TOKEN, Running, make_config, running, until

PLATFORMS = ["discord", "slack", "telegram"]
SCALE: dict[str, Any] = {
    "action": "Scale the web deployment", "tool": "kubectl_scale", "risk": "high",
    "arguments": {"deployment": "web", "replicas": 3},
    "argumentsSchema": {"type": "object", "required": ["deployment", "replicas"],
                        "properties": {"deployment": {"type": "string"},
                                       "replicas": {"type": "integer", "minimum": 1,
                                                    "maximum": 10}}}}
STALE = ("This decision is for other arguments than the ones waiting for approval (what you saw "
         "is out of date); decide on the approval as it is shown now.")
NOT_YOURS = "Sorry, only the person this question is for can answer it."


async def record(r: Running, approval_id: str, wait: int = 0) -> dict[str, Any]:
    async with r.http() as http:
        response = await http.get(f"/v1/approvals/{approval_id}", params={"wait": wait},
                                  headers={"authorization": f"Bearer {AGENT_TOKEN}"})
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


async def decided(r: Running, approval_id: str) -> dict[str, Any]:
    found = await until(lambda: _ended(r, approval_id))
    return dict(found["result"])


async def _ended(r: Running, approval_id: str) -> dict[str, Any] | None:
    found = await record(r, approval_id, wait=1)
    return found if found["status"] != "pending" else None


@asynccontextmanager
async def approving(platform: str, tmp: Path) -> AsyncIterator[tuple[Approver, Running]]:
    async with driver(platform) as person:
        config = make_config(tmp, surfaces=[person.surface], **person.section("all"))
        async with running(config, person.env) as r:
            yield approver(person), r


async def _prompted(r: Running, person: Driver) -> str:
    approval_id = await request_approval(r, SCALE)
    await person.prompt()
    return approval_id


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_approve_runs_the_arguments_shown_and_says_who(platform: str,
                                                            tmp_path: Path) -> None:
    async with approving(platform, tmp_path) as (who, r):
        approval_id = await _prompted(r, who.person)
        controls = who.person.controls()
        assert controls == ["Approve", "Reject", "Edit", "Allow for 1 h"], controls
        assert '"replicas": 3' in who.person.text(), "the arguments are on the prompt"
        await who.press("Approve")
        result = await decided(r, approval_id)
        assert result["status"] == "approved" and result["arguments"] == SCALE["arguments"]
        assert result["edited"] is False and result["scope"] == "once"
        assert result["decidedBy"] == [{"surface": who.person.surface,
                                        "user": result["decidedBy"][0]["user"]}]
        await until(lambda: not who.person.controls())
        assert "Approved by" in who.person.text()


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_reject_asks_for_the_reason_and_the_agent_gets_it(platform: str,
                                                                tmp_path: Path) -> None:
    async with approving(platform, tmp_path) as (who, r):
        approval_id = await _prompted(r, who.person)
        await who.reject("Not during the freeze")
        result = await decided(r, approval_id)
        assert result["status"] == "rejected" and result["reason"] == "Not during the freeze"
        await until(lambda: not who.person.controls())
        assert "Rejected by" in who.person.text()
        assert "Not during the freeze" in who.person.text()


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_edit_is_checked_against_the_schema_then_approves_the_edit(
        platform: str, tmp_path: Path) -> None:
    async with approving(platform, tmp_path) as (who, r):
        if platform == "telegram":  # its Edit sends a link to the web card (tested with the
            r.bridge.reads.links = None  # Telegram tests); without links, a JSON force-reply
        approval_id = await _prompted(r, who.person)
        told = await who.edit(json.dumps({"deployment": "web", "replicas": 50}))
        assert told is not None and "argumentsSchema" in told and "10" in told, told
        assert '"replicas": 3' in who.edit_shows(), "the editor starts from the arguments"
        assert (await record(r, approval_id))["status"] == "pending"
        told = await who.edit("{not json")
        assert told is not None and "JSON" in told
        await who.edit(json.dumps({"deployment": "web", "replicas": 5}))
        result = await decided(r, approval_id)
        assert result["status"] == "approved" and result["edited"] is True
        assert result["arguments"] == {"deployment": "web", "replicas": 5}


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_a_stale_payload_and_a_stranger_are_refused(platform: str,
                                                          tmp_path: Path) -> None:
    async with approving(platform, tmp_path) as (who, r):
        approval_id = await _prompted(r, who.person)
        assert await who.press("Approve", old=True) == STALE
        assert await who.press("Approve", stranger=True) == NOT_YOURS
        found = await record(r, approval_id)
        assert found["status"] == "pending" and found["votes"] == []
        assert who.person.controls(), "the prompt stays open"
        await who.press("Allow for 1 h")
        result = await decided(r, approval_id)
        assert result["status"] == "approved"
        rules = await r.bridge.store.rules(None, now_ms())
        assert [(rule.tool, rule.payload_hash) for rule in rules] == [
            ("kubectl_scale", found["payloadHash"])]


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_an_expired_approval_is_no_answer_and_its_buttons_go(platform: str,
                                                                   tmp_path: Path) -> None:
    async with approving(platform, tmp_path) as (who, r):
        approval_id = await _prompted(r, who.person)
        r.bridge.broker.deadlines.arm(approval_id, now_ms() + 200)  # type: ignore[arg-type]
        result = await decided(r, approval_id)
        assert result == {"status": "no_answer", "reason": "expired"}
        await until(lambda: not who.person.controls())
        assert "Expired" in who.person.text()


@pytest.mark.parametrize("platform", PLATFORMS)
async def test_indonesian_buttons_and_reason_request(platform: str, tmp_path: Path) -> None:
    """The words around the agent's are Indonesian: the four buttons, what Reject asks, and
    what the person is told back."""
    async with driver(platform) as person:
        config = make_config(tmp_path, surfaces=[person.surface], **person.section("all"))
        agents = [config.agents[0].model_copy(update={"locale": "id"}), *config.agents[1:]]
        config = config.model_copy(update={"agents": agents})
        async with running(config, person.env) as r:
            who = approver(person)
            approval_id = await _prompted(r, person)
            assert person.controls() == ["Setujui", "Tolak", "Ubah", "Izinkan 1 jam"]
            told = await who.reject("  ")
            assert told is not None and "tolak" in told.casefold(), told
            await who.reject("jangan sekarang")
            result = await decided(r, approval_id)
            assert result["reason"] == "jangan sekarang"
            await until(lambda: not person.controls())
            assert "Ditolak oleh" in person.text()
