"""Discord's pure parts (ids, payloads, events), its config, and `askbridge doctor`'s check."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.discord import create, ids, inbound, render
from adapters.discord.adapter import DiscordAdapter
from adapters.discord.config import DiscordConfig
from bridge import (
    AdapterContext,
    Button,
    ButtonAction,
    ButtonPressed,
    ButtonsLayout,
    ConfigError,
    DeliveryError,
    Finalization,
    Prompt,
    PromptQuestion,
    QuestionId,
    SelectionChanged,
    SubmitPressed,
    SurfaceId,
    TextLayout,
    TextReceived,
    UserRef,
    parse_ask_request,
    prompt_text,
)
from bridge.text.rendering import expiry_line
from tests.fakes.discord import FakeDiscord
from tests.harness import base_env, free_port, make_config

QID = QuestionId("q_abcdefghjkmnpqrs")


def prompt(raw: dict[str, Any], buttons: bool = False) -> Prompt:
    questions = list(parse_ask_request(raw).questions)
    expires = datetime.now(UTC) + timedelta(minutes=15)
    first = questions[0]
    return Prompt(
        question_id=QID, agent="assistant", session="main",  # type: ignore[arg-type]
        questions=tuple(PromptQuestion(q.id, q.header, q.question,
                                       tuple((o.label, o.description) for o in q.options),
                                       q.multi_select) for q in questions),
        expires_at=expires, text=prompt_text(questions, expires), title=first.header,
        body=first.question, expiry=expiry_line(expires),
        layout=ButtonsLayout((Button("Staging (Recommended)", 0, True), Button("Production", 1),
                              Button("Other…", "other"), Button("Skip", "skip")))
        if buttons else TextLayout())


def long_request() -> dict[str, Any]:
    def question(n: int) -> dict[str, Any]:
        return {"id": f"q{n}", "header": f"Q{n}", "question": "Why " + "very " * 95 + "long?",
                "options": [{"label": f"Option {k} " + "x" * 50, "description": "d" * 200}
                            for k in range(4)]}
    return {"questions": [question(n) for n in range(3)]}


@pytest.mark.parametrize("action", [0, 3, "other", "skip"])
def test_custom_ids_round_trip(action: Any) -> None:
    tap = inbound.parse_custom_id(ids.custom_id(QID, action))
    assert tap == inbound.Tap(QID, action)


@pytest.mark.parametrize("custom_id", ["other:q_abc:1", "ab:nope:1", "ab:q_abc:x", "ab:q_abc:",
                                       "ab:q_abc:123", ""])
def test_foreign_custom_ids_are_ignored(custom_id: str) -> None:
    assert inbound.parse_custom_id(custom_id) is None


@pytest.mark.parametrize("components", [
    [{"type": 18, "component": {"type": 4, "custom_id": "ab:answer", "value": "moon"}}],
    [{"type": 1, "components": [{"type": 4, "custom_id": "ab:answer", "value": "moon"}]}],
])
def test_modal_text_is_found_in_labels_and_rows(components: list[Any]) -> None:
    data = {"custom_id": f"ab:{QID}:m", "components": components}
    assert inbound.modal_submit(data) == (inbound.Tap(QID, "modal"), "moon")
    assert inbound.modal_submit({**data, "custom_id": "someone-elses-modal"}) is None


def test_long_prompts_are_split_within_discords_limit() -> None:
    p = prompt(long_request())
    assert len(p.text) > render.MAX_CONTENT
    messages = render.prompt(p)
    assert len(messages) > 1
    assert all(len(m["content"]) <= render.MAX_CONTENT for m in messages)
    assert all(m["allowed_mentions"] == {"parse": []} for m in messages)
    assert messages[-1]["content"].split("\n")[-1] == p.expiry  # the core's one expiry line
    final = Finalization("cancelled", "Cancelled", p)
    edit = render.final(final, "discord:1")
    assert len(edit["content"]) <= render.MAX_CONTENT
    shown = "\n".join(m["content"] for m in messages)
    assert all(f"Option {k} " + "x" * 50 in shown for k in range(4))
    assert edit["content"].startswith(messages[-1]["content"].rsplit("\n", 1)[0])
    assert edit["content"].endswith("**Cancelled**")


def test_buttons_are_in_two_rows_with_the_recommended_one_primary() -> None:
    rows = render.components(prompt({"questions": [{
        "id": "t", "header": "Deploy", "question": "Where?",
        "options": [{"label": "Staging (Recommended)"}, {"label": "Production"}]}]}, True))
    assert [[(b["label"], b["style"]) for b in row["components"]] for row in rows] == [
        [("Staging (Recommended)", 1), ("Production", 2)], [("Other…", 2), ("Skip", 2)]]


def test_an_answer_from_another_surface_says_elsewhere() -> None:
    p = prompt({"questions": [{"id": "t", "header": "H", "question": "Q?",
                               "options": [{"label": "A"}, {"label": "B"}]}]}, True)
    final = Finalization("answered", "Answered: A", p, SurfaceId("telegram:5"))
    assert render.final(final, "discord:1")["content"].endswith("**Answered: A (elsewhere)**")
    here = Finalization("answered", "Answered: A", p, SurfaceId("discord:1"))
    assert render.final(here, "discord:1")["content"].endswith("**Answered: A**")


def test_markdown_in_questions_is_escaped() -> None:
    p = prompt({"questions": [{"id": "t", "header": "H", "question": "Use **bold** _x_?",
                               "options": [{"label": "A"}, {"label": "B"}]}]}, True)
    assert "Use \\*\\*bold\\*\\* \\_x\\_?" in render.prompt(p)[0]["content"]


def test_who_may_answer() -> None:
    assert inbound.may_answer(7, in_dm=True, answerers=())
    assert inbound.may_answer(7, in_dm=False, answerers=("7",))
    assert not inbound.may_answer(8, in_dm=False, answerers=("7",))


def test_a_mention_of_the_bot_is_not_part_of_the_answer() -> None:
    assert inbound.without_mention("<@1001> 2", 1001) == "2"
    assert inbound.without_mention("<@!1001>  staging ", 1001) == "staging"


def test_interactions_become_core_events() -> None:
    def raw(kind: Any, data: dict[str, Any]) -> inbound.Interaction:
        return inbound.Interaction(kind, 3001, 4001, data, True)

    select = inbound.event_from(raw("component", {"custom_id": f"ab:{QID}:v1", "values": ["0"]}))
    assert select == SelectionChanged(SurfaceId("discord:3001"), UserRef("4001"), QID, 1, (0,),
                                      True)
    done = inbound.event_from(raw("component", {"custom_id": f"ab:{QID}:d"}))
    assert done == SubmitPressed(SurfaceId("discord:3001"), UserRef("4001"), QID, True)
    actions: tuple[tuple[str, ButtonAction], ...] = (
        ("2", 2), ("o", "other"), ("w", "other"), ("s", "skip"))
    for code, action in actions:
        pressed = inbound.event_from(raw("component", {"custom_id": f"ab:{QID}:{code}"}))
        assert pressed == ButtonPressed(SurfaceId("discord:3001"), UserRef("4001"), QID, action,
                                        True)
    modal = {"custom_id": f"ab:{QID}:m", "components": [
        {"type": 18, "component": {"type": 4, "custom_id": "ab:answer", "value": "moon"}}]}
    text = inbound.event_from(raw("modal", modal))
    assert isinstance(text, TextReceived) and (text.text, text.reply_to) == ("moon", QID)
    assert inbound.event_from(raw("component", {"custom_id": "someone:else:1"})) is None


def test_replies_carry_the_prompts_reference() -> None:
    event = inbound.message_event(3001, 4001, "2", True, 5000)
    assert (event.surface, event.user, event.reply_to) == ("discord:3001", "4001", "3001:5000")


def test_config_checks_user_ids_and_unknown_keys() -> None:
    assert DiscordConfig(answerers=[111, "222"]).answerers == ("111", "222")
    with pytest.raises(ValueError, match="Copy User ID"):
        DiscordConfig(answerers=["@alice"])
    with pytest.raises(ValueError, match="extra"):
        DiscordConfig(tokn_env="X")  # type: ignore[call-arg]


def ctx(tmp: Path, env: dict[str, str], **section: Any) -> AdapterContext:
    config = make_config(tmp, discord=section) if section else make_config(tmp)
    return AdapterContext(config=config, env=env, base_url="http://127.0.0.1:8765")


def test_create_needs_the_section_and_the_token(tmp_path: Path) -> None:
    assert create(ctx(tmp_path, base_env())) is None
    with pytest.raises(ConfigError, match=r"\$DISCORD_BOT_TOKEN, which is not set"):
        create(ctx(tmp_path, base_env(), answerers=[1]))
    with pytest.raises(ConfigError, match=r"\[discord\] has problems"):
        create(ctx(tmp_path, {"DISCORD_BOT_TOKEN": "t"}, answerers="me"))
    adapter = create(ctx(tmp_path, {"DISCORD_BOT_TOKEN": "t"}, answerers=[1]))
    assert isinstance(adapter, DiscordAdapter)
    assert adapter.capabilities(SurfaceId("discord:1")).buttons


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    server = await FakeDiscord().start()
    yield server
    await server.stop()


async def test_doctor_names_the_bot_or_says_the_token_is_bad(fake: FakeDiscord) -> None:
    config = DiscordConfig(api_base=fake.api_base, gateway_url=fake.gateway_url)
    assert await DiscordAdapter(config, fake.token).check() == "Discord bot askbot"
    with pytest.raises(DeliveryError, match="Reset Token"):
        await DiscordAdapter(config, "wrong").check()
    nowhere = DiscordConfig(api_base=f"http://127.0.0.1:{free_port()}/api/v10")
    with pytest.raises(DeliveryError, match="could not be reached"):
        await DiscordAdapter(nowhere, fake.token).check()


async def test_a_bad_token_stops_start_with_a_sentence(fake: FakeDiscord) -> None:
    config = DiscordConfig(api_base=fake.api_base, gateway_url=fake.gateway_url)
    adapter = DiscordAdapter(config, "wrong")
    with pytest.raises(ConfigError, match="Reset Token"):
        await adapter.start(None, None)  # type: ignore[arg-type]
    await adapter.stop()


async def test_message_content_off_in_the_portal_is_explained(fake: FakeDiscord) -> None:
    fake.message_content_allowed = False
    config = DiscordConfig(api_base=fake.api_base, gateway_url=fake.gateway_url,
                           text_replies=True, guild_ready_timeout=0.05)
    adapter = DiscordAdapter(config, fake.token)
    await adapter.start(None, None)  # type: ignore[arg-type]  # REST login works without the intent
    with pytest.raises(ConfigError, match="Privileged Gateway Intents"):
        await adapter.connect()  # the gateway refuses it: say what to change
    await adapter.stop()
