"""Slack's native layout: radio buttons or checkboxes per question, Submit · Other… · Skip."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from tests.adapters.slack.support import TWO, slack_config, slack_env
from tests.fakes.slack import fake_slack, payload
from tests.harness import running, until


def checkbox_body(message: dict[str, Any], element: dict[str, Any], chosen: list[str],
                  user: str = "U0123") -> dict[str, Any]:
    body = payload("block_actions")
    body["user"]["id"] = user
    body["channel"]["id"] = message["channel"]
    body["container"].update(message_ts=message["ts"], channel_id=message["channel"])
    body["message"].update(ts=message["ts"], blocks=copy.deepcopy(message["blocks"]))
    options = [o for o in element["options"] if o["value"] in chosen]
    body["actions"] = [{"type": "checkboxes", "action_id": element["action_id"],
                        "block_id": "b", "selected_options": options, "action_ts": "1.2"}]
    return body


async def test_checkboxes_are_acked_and_shown_back(tmp_path: Path) -> None:
    async with fake_slack() as fake, running(slack_config(tmp_path, fake), slack_env()) as r, \
            r.client() as client:
        qid = (await client.create(TWO))["id"]
        message = await fake.wait_posted()
        kinds = [b["type"] for b in message["blocks"]]
        assert kinds == ["section", "actions", "section", "actions", "actions", "context"]
        radio = message["blocks"][1]["elements"][0]
        boxes = message["blocks"][3]["elements"][0]
        assert (radio["type"], boxes["type"]) == ("radio_buttons", "checkboxes")
        assert [o["text"]["text"] for o in boxes["options"]] == ["Lint", "Test", "Build"]
        assert "Which &lt;env&gt; &amp; region?" in message["blocks"][0]["text"]["text"]
        controls = [e["text"]["text"] for e in message["blocks"][4]["elements"]]
        assert controls == ["Submit", "Other…", "Skip"]

        ack = await fake.send_envelope("interactive", checkbox_body(message, boxes, ["0", "2"]))
        assert ack["envelope_id"], "the selection change is acknowledged"
        await until(lambda: fake.called("chat.update"))
        shown = fake.messages[(message["channel"], message["ts"])]["blocks"][3]["elements"][0]
        assert [o["text"]["text"] for o in shown["initial_options"]] == ["Lint", "Build"]
        assert await r.bridge.store.partial(qid) == {"checks": ["Lint", "Build"]}

        updates = len(fake.called("chat.update"))
        await fake.send_envelope("interactive",
                                 checkbox_body(message, boxes, ["1"], user="U0999"))
        note = await fake.wait_call("chat.postEphemeral")
        assert note["user"] == "U0999" and "only the person" in note["text"]
        assert await r.bridge.store.partial(qid) == {"checks": ["Lint", "Build"]}
        restored = await fake.wait_call("chat.update", updates + 1)  # their ticks are undone
        boxes_now = restored["blocks"][3]["elements"][0]
        assert [o["text"]["text"] for o in boxes_now["initial_options"]] == ["Lint", "Build"]
