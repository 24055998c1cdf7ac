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
