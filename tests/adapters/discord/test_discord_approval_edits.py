"""An edit under quorum in a Discord channel: a reply to a reminder posted before the edit, or
to the prompt the edit replaced, is about the old arguments — refused as stale (not counted for
the new ones, not met with silence); a reply to the new prompt counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bridge import ApprovalDecided, QuestionId, SurfaceId, UserRef
from tests.adapters.discord.support import ANSWERER, STRANGER, config, env, prompt_in
from tests.fakes.discord import FakeDiscord
from tests.harness import AGENT_TOKEN, Running, running, until

SCALE: dict[str, Any] = {"action": "Scale the web deployment", "tool": "kubectl_scale",
                         "arguments": {"deployment": "web", "replicas": 3},
                         "timeoutSeconds": 3600}
EDITED = {"deployment": "web", "replicas": 5}
STALE = ("The arguments of this request were changed by an edit since you saw them; decide on "
         "the new arguments as they are shown now.")


def _config(tmp: Path, fake: FakeDiscord) -> Any:
    """ana (the answerer) and budi must both approve; reminders only when fired by hand."""
    made = config(tmp, fake)
    checked = type(made).model_validate({
        **made.model_dump(), "people": [{"name": "ana", "discord": ANSWERER},
                                        {"name": "budi", "discord": STRANGER}],
        "approvals": [{"approvers": ["ana", "budi"], "required": 2}]})
    agents = [checked.agents[0].model_copy(update={"remind_after": [1800.0]}),
              *checked.agents[1:]]
    return checked.model_copy(update={"agents": agents})


async def _record(r: Running, approval_id: str) -> dict[str, Any]:
    async with r.http() as http:
        found: dict[str, Any] = (await http.get(f"/v1/approvals/{approval_id}", headers={
            "authorization": f"Bearer {AGENT_TOKEN}"})).json()
    return found


async def _told(fake: FakeDiscord, reply_to: dict[str, Any]) -> str:
    """ana replies `approve` to `reply_to`; the bot's reply to her message."""
    said = await fake.user_message(fake.channel_id, ANSWERER, "approve", reply_to=reply_to)
    answer: dict[str, Any] = await until(lambda: next(
        (m for m in fake.in_channel(fake.channel_id)
         if (m.get("message_reference") or {}).get("message_id") == said["id"]), None))
    return str(answer["content"])


async def test_a_reply_to_a_reminder_or_prompt_from_before_an_edit_is_refused_as_stale(
        tmp_path: Path) -> None:
    fake = await FakeDiscord().start()
    try:
        async with running(_config(tmp_path, fake), env(fake)) as r:
            async with r.http() as http:
                response = await http.post("/v1/sessions/main/approvals", json=SCALE,
                                           headers={"authorization": f"Bearer {AGENT_TOKEN}"})
            approval_id = str(response.json()["id"])
            old = await prompt_in(fake, r)
            timer = (await r.bridge.store.timers_of(QuestionId(approval_id)))[0]
            await r.bridge.broker.reach.fire(timer)  # reminder 1, long before it is due
            reminder = (await until(lambda: [m for m in fake.in_channel(fake.channel_id)
                                             if m["content"].startswith("Reminder:")]))[0]

            told = await r.bridge.receiver.approval_decided(ApprovalDecided(
                SurfaceId(f"discord:{fake.channel_id}"), UserRef(str(STRANGER)),
                QuestionId(approval_id), "approve", authorized=False, arguments=EDITED))
            assert told.accepted and "new arguments" in (told.text or ""), told
            new = (await until(lambda: [m for m in fake.in_channel(fake.channel_id)
                                        if '"replicas": 5' in str(m)
                                        and m["components"]]))[-1]

            assert await _told(fake, reminder) == STALE
            assert await _told(fake, old) == STALE
            found = await _record(r, approval_id)
            assert found["status"] == "pending"
            assert [v["user"] for v in found["votes"]] == [str(STRANGER)]

            await fake.user_message(fake.channel_id, ANSWERER, "approve", reply_to=new)
            done = await until(lambda: _ended(r, approval_id))
            assert done["result"]["status"] == "approved"
            assert done["result"]["arguments"] == EDITED
    finally:
        await fake.stop()


async def _ended(r: Running, approval_id: str) -> dict[str, Any] | None:
    found = await _record(r, approval_id)
    return found if found["status"] != "pending" else None
