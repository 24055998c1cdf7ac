"""An edit under quorum in a Telegram chat: a text reply to a reminder posted before the edit,
or to the prompt the edit replaced, is about the old arguments — refused as stale (not counted
for the new ones, not met with silence); a reply to the new prompt counts."""

from __future__ import annotations

from typing import Any

from bridge import ApprovalDecided, QuestionId, SurfaceId, UserRef
from tests.adapters.telegram.support import DM, OWNER, STRANGER, Tg, delivered, keyboard
from tests.fakes.telegram import FakeTelegram
from tests.harness import AGENT_TOKEN, Running, make_config, running, until

SCALE: dict[str, Any] = {"action": "Scale the web deployment", "tool": "kubectl_scale",
                         "arguments": {"deployment": "web", "replicas": 3},
                         "timeoutSeconds": 3600}
EDITED = {"deployment": "web", "replicas": 5}
STALE = ("The arguments of this request were changed by an edit since you saw them; decide on "
         "the new arguments as they are shown now.")


def _config(tg: Tg) -> Any:
    """ana (the chat's owner) and budi must both approve; reminders only when fired by hand."""
    people = [{"name": "ana", "telegram": [OWNER["id"]]},
              {"name": "budi", "telegram": [STRANGER["id"]]}]
    config = make_config(tg.tmp, surfaces=[f"telegram:{DM['id']}"], people=people,
                         approvals=[{"approvers": ["ana", "budi"], "required": 2}],
                         telegram=dict(tg.config(DM["id"]).section("telegram") or {}))
    agents = [config.agents[0].model_copy(update={"remind_after": [1800.0]}), *config.agents[1:]]
    return config.model_copy(update={"agents": agents})


async def _record(r: Running, approval_id: str) -> dict[str, Any]:
    async with r.http() as http:
        found: dict[str, Any] = (await http.get(f"/v1/approvals/{approval_id}", headers={
            "authorization": f"Bearer {AGENT_TOKEN}"})).json()
    return found


async def _request(r: Running) -> str:
    async with r.http() as http:
        response = await http.post("/v1/sessions/main/approvals", json=SCALE,
                                   headers={"authorization": f"Bearer {AGENT_TOKEN}"})
    assert response.status_code == 202, response.text
    return str(response.json()["id"])


async def _told(fake: FakeTelegram, said: dict[str, Any]) -> str:
    """The text of the bot's reply to the person's message `said`."""
    def answer() -> str | None:
        return next((str(c["text"]) for c in fake.calls_of("sendMessage")
                     if (c.get("reply_parameters") or {}).get("message_id")
                     == said["message_id"]), None)
    found: str = await fake.wait_for(answer)
    return found


async def test_a_reply_to_a_reminder_or_prompt_from_before_an_edit_is_refused_as_stale(
        tg: Tg, fake: FakeTelegram) -> None:
    async with running(_config(tg), tg.env) as r:
        approval_id = await _request(r)
        await delivered(r, DM["id"])
        old = await fake.sent(DM["id"], keyboard)
        assert '"replicas": 3' in old["text"]
        timer = (await r.bridge.store.timers_of(QuestionId(approval_id)))[0]
        await r.bridge.broker.reach.fire(timer)  # reminder 1, long before it is due
        reminder = await fake.sent(DM["id"], lambda m: m["text"].startswith("Reminder:"))

        told = await r.bridge.receiver.approval_decided(ApprovalDecided(
            SurfaceId(f"telegram:{DM['id']}"), UserRef(str(STRANGER["id"])),
            QuestionId(approval_id), "approve", authorized=False, arguments=EDITED))
        assert told.accepted and "new arguments" in (told.text or ""), told
        new = await fake.sent(DM["id"], lambda m: keyboard(m) and '"replicas": 5' in m["text"])

        said = await fake.say(DM, OWNER, "approve", reply_to=reminder)
        assert await _told(fake, said) == STALE
        said = await fake.say(DM, OWNER, "approve", reply_to=old)
        assert await _told(fake, said) == STALE
        found = await _record(r, approval_id)
        assert found["status"] == "pending"
        assert [v["user"] for v in found["votes"]] == [str(STRANGER["id"])]

        await fake.say(DM, OWNER, "approve", reply_to=new)
        done = await until(lambda: _ended(r, approval_id))
        assert done["result"]["status"] == "approved"
        assert done["result"]["arguments"] == EDITED


async def _ended(r: Running, approval_id: str) -> dict[str, Any] | None:
    found = await _record(r, approval_id)
    return found if found["status"] != "pending" else None
