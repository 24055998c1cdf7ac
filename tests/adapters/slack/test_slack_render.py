"""Pure pieces of the Slack adapter: ids that survive restarts, escaping, inbound parsing."""

from __future__ import annotations

from adapters.slack.inbound import click_from, text_from
from adapters.slack.render import action_id, escape, parse_action_id, split_target
from tests.fakes.slack import message_body, payload


def test_action_ids_round_trip() -> None:
    for action in (0, 3, "other", "skip"):
        assert parse_action_id(action_id("q_abc", action)) == ("q_abc", action)
    assert action_id("q_abc", "other") == "ab:q_abc:o"
    for foreign in ("approve", "ab:q_abc", "ab::1", "ab:q_abc:x", "xx:q_abc:1"):
        assert parse_action_id(foreign) is None


def test_escape_and_surface_targets() -> None:
    assert escape("a & <b> c") == "a &amp; &lt;b&gt; c"
    assert split_target("slack:C0123") == ("C0123", None)
    assert split_target("slack:C0123/1700000000.000100") == ("C0123", "1700000000.000100")


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
