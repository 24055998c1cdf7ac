"""A served bridge deletes what ended longer ago than `[store] keep`, and says how long it keeps."""

from __future__ import annotations

from pathlib import Path

from bridge.model.contract import AskResult
from bridge.model.ids import AgentName, QuestionId, SessionKey, SurfaceId
from bridge.store import QuestionRecord, Resolution, SqliteStore, now_ms
from tests.adapters.web.support import SURFACES, login
from tests.bridge.store.support import REQUEST
from tests.harness import AGENT_TOKEN, make_config, running, until

DAY_MS = 86_400_000


async def _ended(store: SqliteStore, qid: str, days_ago: float) -> None:
    at = now_ms() - int(days_ago * DAY_MS)
    await store.create_question(QuestionRecord(
        QuestionId(qid), AgentName("assistant"), SessionKey("main"), REQUEST, "pending", at,
        at + 60_000), [SurfaceId("web")])
    assert await store.resolve(QuestionId(qid), Resolution(
        AskResult.answered({"env": ["my own words"]}), "Deploy: answered", at + 1_000))


async def test_serving_deletes_what_ended_before_keep_and_both_timelines_say_how_long(
    tmp_path: Path,
) -> None:
    path = tmp_path / "askbridge.db"
    config = make_config(tmp_path, surfaces=SURFACES, store={"path": str(path), "keep": "1d"})
    seeded = SqliteStore(str(path))
    await seeded.open()
    await _ended(seeded, "q_old", days_ago=2)
    await _ended(seeded, "q_recent", days_ago=0.5)
    await seeded.close()

    async with running(config) as r, r.http() as http:
        store = r.bridge.store
        await until(lambda: _gone(store, "q_old"))
        assert await store.get_question(QuestionId("q_recent")) is not None
        api = await http.get("/v1/sessions/main/timeline",
                             headers={"authorization": f"Bearer {AGENT_TOKEN}"})
        assert api.status_code == 200
        assert api.json()["keep"] == "1d"
        assert [q["id"] for q in api.json()["questions"]] == ["q_recent"]
        await login(r, http)
        ui = await http.get("/ui/api/timeline", params={"agent": "assistant", "session": "main"})
        assert ui.status_code == 200 and ui.json()["keep"] == "1d"


async def _gone(store: object, qid: str) -> bool:
    assert isinstance(store, SqliteStore)
    return await store.get_question(QuestionId(qid)) is None


async def test_audit_retention_deletes_old_entries_and_the_chain_still_verifies(
    tmp_path: Path,
) -> None:
    from bridge.core.audit import verify
    from bridge.core.retention import Retention
    from bridge.store.approval_records import AuditDraft

    store = SqliteStore(str(tmp_path / "audit.db"))
    await store.open()
    try:
        for n, days_ago in enumerate((400, 380, 10, 1)):
            async with store.transaction() as db:
                await store.append_audit(db, AuditDraft(
                    "rule_revoked", None, {"ruleId": f"r_{n}"}, now_ms() - days_ago * DAY_MS))
        retention = Retention(store, None, audit_keep=365 * 86_400)
        assert await retention.purge_audit() == 2
        assert [e.seq for e in await store.audit_entries()] == [3, 4]
        report = await verify(store)
        assert report.ok and report.entries == 2
    finally:
        await store.close()
