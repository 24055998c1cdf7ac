"""The Matrix adapter's pure parts: config, ids, rendering and event parsing (no homeserver)."""

from __future__ import annotations

import re
import tomllib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adapters.matrix import create, ids, inbound, render
from bridge import (
    AdapterContext,
    ButtonsLayout,
    ConfigError,
    DeliveryError,
    Prompt,
    PromptQuestion,
    QuestionId,
    SurfaceId,
    TextLayout,
)
from tests.harness import base_env, make_config

ME = "@askbot:example.org"
PERSON = "@me:example.org"


def _ctx(tmp: Path, env: dict[str, str] | None = None, **matrix: object) -> AdapterContext:
    section = {"homeserver": "https://matrix.example.org", "user_id": ME, **matrix}
    config = make_config(tmp, surfaces=["matrix:!room:example.org"], matrix=section)
    return AdapterContext(config, env if env is not None else base_env(), "http://127.0.0.1")


def test_config_problems_say_what_to_write(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\$MATRIX_ACCESS_TOKEN, which is not set"):
        create(_ctx(tmp_path))
    with pytest.raises(ConfigError, match="full Matrix id"):
        create(_ctx(tmp_path, user_id="askbot"))
    with pytest.raises(ConfigError, match="answerers must be full Matrix ids"):
        create(_ctx(tmp_path, answerers=["me"]))
    with pytest.raises(ConfigError, match="native"):
        create(_ctx(tmp_path, native="some"))
    adapter = create(_ctx(tmp_path, {"MATRIX_ACCESS_TOKEN": "syt_x"}, answerers=[PERSON]))
    assert adapter is not None and adapter.platform == "matrix"
    assert create(AdapterContext(make_config(tmp_path), base_env(), "http://x")) is None


def test_surfaces_and_references_round_trip() -> None:
    assert ids.room_of("matrix:!abc:example.org") == "!abc:example.org"
    assert ids.room_of("matrix:!hashOnlyV12") == "!hashOnlyV12"
    for bad in ("matrix:#alias:example.org", "matrix:", "matrix:!a b"):
        with pytest.raises(ValueError):
            ids.room_of(bad)
    sent = ids.Sent("!r:x", "$text", ("$p1", "$p2"))
    assert ids.parse_ref(ids.message_ref(sent)) == sent
    assert ids.parse_ref(ids.message_ref(ids.Sent("!r:x", "$t"))).poll_ids == ()


def _prompt(multi: bool = False, buttons: bool = False) -> Prompt:
    question = PromptQuestion("checks", "Checks", "Which checks?",
                              (("Lint", None), ("Test", "slow"), ("Build", None)), multi)
    return Prompt(QuestionId("q_abc"), "a", "main", (question,),  # type: ignore[arg-type]
                  datetime(2030, 1, 1, tzinfo=UTC), "1) Lint …", "Checks", "Which checks?",
                  "Expires soon.", layout=ButtonsLayout(()) if buttons else TextLayout())


def test_a_poll_discloses_results_and_allows_one_or_every_option() -> None:
    single = render.poll_content(_prompt(), 0)
    block = single[render.POLL_START]
    assert block["kind"] == render.DISCLOSED and block["max_selections"] == 1
    assert [a["id"] for a in block["answers"]] == ["1", "2", "3"]
    assert single["m.poll"]["max_selections"] == 1
    assert single[render.MARK] == "q_abc" and single[render.POLL_INDEX] == 0
    assert render.poll_content(_prompt(multi=True), 0)[render.POLL_START]["max_selections"] == 3
    assert render.wants_polls(_prompt(multi=True), "all")
    assert not render.wants_polls(_prompt(multi=True), "single")
    assert render.wants_polls(_prompt(buttons=True), "single")


def test_votes_in_both_spellings_and_text_replies_are_read() -> None:
    unstable = {"type": "org.matrix.msc3381.poll.response", "sender": PERSON, "event_id": "$v",
                "content": {"m.relates_to": {"rel_type": "m.reference", "event_id": "$poll"},
                            "org.matrix.msc3381.poll.response": {"answers": ["2"]}}}
    stable = {"type": "m.poll.response", "sender": PERSON, "event_id": "$w",
              "content": {"m.relates_to": {"rel_type": "m.reference", "event_id": "$poll"},
                          "m.selections": ["1", "3"]}}
    assert inbound.event_from("!r", unstable, ME) == inbound.Vote(
        room_id="!r", sender=PERSON, event_id="$v", poll_id="$poll", answers=("2",))
    vote = inbound.event_from("!r", stable, ME)
    assert isinstance(vote, inbound.Vote) and vote.answers == ("1", "3")
    reply = {"type": "m.room.message", "sender": PERSON, "event_id": "$t",
             "content": {"msgtype": "m.text", "body": "> <@askbot:x> 1) Lint\n> more\n\n2",
                         "m.relates_to": {"m.in_reply_to": {"event_id": "$prompt"}}}}
    said = inbound.event_from("!r", reply, ME)
    assert isinstance(said, inbound.Said) and (said.text, said.reply_to) == ("2", "$prompt")


def test_our_own_events_edits_notices_and_junk_are_not_answers() -> None:
    text = {"msgtype": "m.text", "body": "2"}
    assert inbound.event_from("!r", {"type": "m.room.message", "sender": ME, "event_id": "$a",
                                     "content": text}, ME) is None
    for content in ({"msgtype": "m.notice", "body": "2"},
                    {**text, "m.relates_to": {"rel_type": "m.replace", "event_id": "$x"}},
                    {"msgtype": "m.text", "body": 2}):
        assert inbound.event_from("!r", {"type": "m.room.message", "sender": PERSON,
                                         "event_id": "$b", "content": content}, ME) is None
    broken_vote = {"type": "m.poll.response", "sender": PERSON, "event_id": "$c",
                   "content": {"m.relates_to": {"rel_type": "m.reference"}, "m.selections": []}}
    assert inbound.event_from("!r", broken_vote, ME) is None
    assert inbound.event_from("!r", {"type": "m.room.message"}, ME) is None
    assert inbound.chosen(("3", "1", "1"), 3) == [0, 2]
    assert inbound.chosen(("4",), 3) is None and inbound.chosen(("x",), 3) is None


def test_only_our_marked_events_bind_replies() -> None:
    ours = {"sender": ME, "content": {render.MARK: "q_abc", render.POLL_INDEX: 1}}
    assert inbound.mark_of(ours, ME) == inbound.Mark(question_id=QuestionId("q_abc"), index=1)
    assert inbound.mark_of({**ours, "sender": PERSON}, ME) is None, "a forged mark is ignored"
    assert inbound.mark_of({"sender": ME, "content": {"body": "hi"}}, ME) is None


def test_the_example_configs_matrix_block_builds(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[3] / "config" / "askbridge.example.toml"
    lines, inside = [], False
    for line in example.read_text().splitlines():
        inside = (inside or line == "# [matrix]") and bool(line.strip())
        lines.append(line[2:] if inside and re.match(r"^# (\[|[a-z_]+ = )", line) else line)
    raw = tomllib.loads("\n".join(lines))
    assert raw["matrix"]["native"] == "all"
    config = make_config(tmp_path, surfaces=["matrix:!room:example.org"], matrix=raw["matrix"])
    adapter = create(AdapterContext(config, {"MATRIX_ACCESS_TOKEN": "syt_x"}, "http://x"))
    assert adapter is not None and adapter.config.answerers == ["@me:example.org"]


async def test_an_unreachable_homeserver_is_a_delivery_error_that_says_so(tmp_path: Path) -> None:
    from adapters.matrix.client import SyncFailed
    from adapters.matrix.sync import SYNC_FILTER
    from tests.harness import free_port

    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    adapter = create(_ctx(tmp_path, {"MATRIX_ACCESS_TOKEN": "syt_x"}, homeserver=url,
                          request_timeout=2))
    assert adapter is not None
    await adapter.start(None, None)  # type: ignore[arg-type]  # sending needs no sink
    try:
        with pytest.raises(DeliveryError, match="could not be reached"):
            await adapter.deliver(SurfaceId("matrix:!room:example.org"), _prompt())
        with pytest.raises(DeliveryError, match="not a Matrix room id"):
            await adapter.deliver(SurfaceId("matrix:#alias:example.org"), _prompt())
        assert adapter._client is not None
        with pytest.raises(SyncFailed):
            await adapter._client.sync(None, 0, SYNC_FILTER)
    finally:
        await adapter.stop()
