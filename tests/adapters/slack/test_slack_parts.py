"""Pure pieces of the Slack adapter: ids that survive restarts, escaping, inbound parsing."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from adapters.slack import render
from adapters.slack.ids import action_id, parse_action_id, target_of
from adapters.slack.inbound import click_from, event_from, text_from
from adapters.slack.limits import SlackLimits
from adapters.slack.mrkdwn import escape
from bridge import AgentName, Pace, Priority, Prompt, QuestionId, SessionKey
from tests.fakes.slack import message_body, payload


def test_action_ids_round_trip() -> None:
    for action in (0, 3, "other", "skip"):
        assert parse_action_id(action_id("q_abc", action)) == ("q_abc", action)
    assert action_id("q_abc", "other") == "ab:q_abc:o"
    for foreign in ("approve", "ab:q_abc", "ab::1", "ab:q_abc:x", "xx:q_abc:1"):
        assert parse_action_id(foreign) is None


def test_escape_and_surface_targets() -> None:
    assert escape("a & <b> c") == "a &amp; &lt;b&gt; c"
    assert target_of("slack:C0123") == ("C0123", None)
    assert target_of("slack:C0123/1700000000.000100") == ("C0123", "1700000000.000100")


def test_foreign_clicks_are_not_ours() -> None:
    body = payload("block_actions")
    body["channel"]["id"] = "C0123"
    body["actions"][0]["action_id"] = "someone_elses_button"
    assert click_from(body, ["U0123"]) is None


def test_messages_bind_to_threads_and_surfaces() -> None:
    reply = text_from(message_body("C1", "2", thread_ts="1.5")["event"], ["U0123"], ())
    assert reply is not None and reply.surface == "slack:C1" and reply.reply_to == "C1/1.5"
    in_thread = text_from(message_body("C1", "2", thread_ts="1.5")["event"], ["U0123"],
                          {"slack:C1/1.5"})
    assert in_thread is not None and in_thread.surface == "slack:C1/1.5"
    assert in_thread.reply_to is None
    assert text_from(message_body("C1", "2", user="U9")["event"], ["U0123"], ()) is None
    bot = message_body("C1", "2")["event"] | {"bot_id": "B1"}
    assert text_from(bot, ["U0123"], ()) is None
    dm = text_from(message_body("D1", "hi", user="U9")["event"], [], ())
    assert dm is not None and dm.authorized


def test_events_come_from_every_kind_of_payload() -> None:
    body = payload("block_actions")
    body["channel"]["id"] = "C0123"
    body["actions"][0]["action_id"] = "ab:q_abc:2"
    pressed = event_from(body, ["U0123"])
    assert pressed is not None and (pressed.question_id, pressed.action) == ("q_abc", 2)  # type: ignore[union-attr]
    body["actions"][0] = {"action_id": "ab:q_abc:v1", "selected_options": [{"value": "3"}]}
    selected = event_from(body, ["U0123"])
    assert selected is not None and (selected.question, selected.options) == (1, (3,))  # type: ignore[union-attr]
    said = event_from(message_body("C1", "2")["event"], ["U0123"])
    assert said is not None and said.text == "2"  # type: ignore[union-attr]
    assert event_from({"type": "app_home_opened"}, ["U0123"]) is None


def test_a_long_text_prompt_goes_in_sections_slack_takes() -> None:
    lines = [f"{n}) Rock & roll <{n}> " + "word " * 100 for n in range(20)]
    prompt = Prompt(QuestionId("q_1"), AgentName("a"), SessionKey("s"), (), datetime.now(UTC),
                    "\n".join(lines), "Title", "Body", "Expires soon.")
    messages = render.prompt(prompt)
    assert len(messages) > 1 and all(len(m["text"]) <= render.MAX_SECTION for m in messages)
    assert "".join(m["text"] for m in messages).replace("\n", "") == escape(
        prompt.text).replace("\n", "")


async def test_a_channels_window_is_dropped_once_idle() -> None:
    """Per-channel limiter state does not grow with every channel the bot ever posted in."""
    loop, later = asyncio.get_running_loop(), [0.0]
    slack_limits = SlackLimits(clock=lambda: loop.time() + later[0])
    pace = Pace(slack_limits)

    async def send() -> None:
        pass

    for channel in range(30):
        await pace.call(f"slack:C{channel:04d}", Priority.PROMPT, send)
    assert len(slack_limits.channels) == 30
    later[0] = 61.0  # past the channel window, and a sweep is due (one a minute at most)
    slack_limits("slack:C9999", Priority.PROMPT)
    assert len(slack_limits.channels) == 1
