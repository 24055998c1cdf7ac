"""Each adapter's own words — modals, force-reply asks, expiry lines — in the prompt's language."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from adapters.discord.render import other_modal as discord_modal
from adapters.discord.render import prompt as discord_prompt
from adapters.slack.render import other_modal as slack_modal
from adapters.telegram.render import free_text_request
from adapters.telegram.render import prompt as telegram_prompt
from adapters.webhook import render as webhook_render
from bridge import Finalization, Prompt, QuestionId, SurfaceId
from bridge.core.surfaces import asked
from bridge.model.validation import parse_ask_request
from bridge.store.records import QuestionRecord, now_ms
from bridge.text.rendering import build_prompt
from tests.samples import BOTH, CHECKS, DEPLOY


def prompt(locale: str, request: dict[str, Any] = DEPLOY, buttons: bool = True) -> Prompt:
    created = now_ms()
    record = QuestionRecord(id=QuestionId("q_test"), agent="a", session="s",  # type: ignore[arg-type]
                            request=parse_ask_request(request), status="pending",
                            created_at=created, expires_at=created + 600_000)
    return build_prompt(asked(record), buttons, locale)


@pytest.mark.parametrize(("locale", "title", "label"), [
    ("en", "Deploy: your answer", "Your answer"), ("id", "Deploy: jawaban Anda", "Jawaban Anda")])
def test_discord_modal(locale: str, title: str, label: str) -> None:
    modal = discord_modal(QuestionId("q_test"), prompt(locale), locale).to_dict()
    assert modal["title"] == title
    assert modal["components"][0]["label"] == label


@pytest.mark.parametrize(("locale", "send", "cancel"), [("en", "Send", "Cancel"),
                                                        ("id", "Kirim", "Batal")])
def test_slack_modal(locale: str, send: str, cancel: str) -> None:
    view = slack_modal(QuestionId("q_test"), SurfaceId("slack:C1"), "Deploy", "Where?", locale)
    assert (view["submit"]["text"], view["close"]["text"]) == (send, cancel)


def test_telegram_free_text_ask_and_expiry() -> None:
    text, _ = free_text_request(prompt("id"), None)
    assert text == "Deploy: balas pesan ini dengan jawaban Anda sendiri."
    assert "Kedaluwarsa pukul" in telegram_prompt(prompt("id"))[-1][0]
    assert "Expires at" in telegram_prompt(prompt("en"))[-1][0]


def test_discord_text_prompt_shows_the_expiry_line_once() -> None:
    shown = discord_prompt(prompt("id", {"questions": [CHECKS]}, buttons=False))
    content = shown[-1]["content"]
    assert content.count("Kedaluwarsa pukul") == 1 and content.endswith("menit).")
    assert 'Balas "lewati"' in content


def test_webhook_status_for_several_questions() -> None:
    final = Finalization("skipped", "Dilewati", prompt("id", BOTH, buttons=False))
    assert webhook_render.final("+1", final, 160) == [{
        "conversation": "+1", "questionId": "q_test", "kind": "status",
        "text": "Pertanyaan Anda: Dilewati"}]


async def test_taps_are_answered_in_the_agents_language(tmp_path: Path) -> None:
    """No `[telegram] locale`: the agent's `id` decides, also for a tap after the end."""
    from tests.adapters.telegram.support import DM, OWNER, deploy, edited, keyboard
    from tests.fakes.telegram import TOKEN, FakeTelegram
    from tests.harness import base_env, make_config, running

    async with FakeTelegram() as fake:
        fake.add_chat(DM)
        config = make_config(tmp_path, surfaces=[f"telegram:{DM['id']}"], telegram={
            "base_url": fake.base_url, "poll_timeout": 1, "retry_base_seconds": 0.05})
        config = config.model_copy(update={"agents": [
            a.model_copy(update={"locale": "id"}) for a in config.agents]})
        async with running(config, {**base_env(), "TELEGRAM_BOT_TOKEN": TOKEN}) as r, \
                r.client() as client:
            ask = asyncio.create_task(client.ask(deploy()))
            prompt = await fake.sent(DM["id"], keyboard)
            assert fake.buttons(prompt)[-2:] == ["Lainnya…", "Lewati"]
            query = await fake.tap(prompt, OWNER, "Production")
            assert (await asyncio.wait_for(ask, 10)).answer_map() == {
                "deploy_target": ["Production"]}
            answer = await fake.wait_for(lambda: fake.callback_answer(query))
            assert answer["text"] == "Terima kasih, tercatat: Production."
            final = await edited(fake, prompt)
            assert final["text"].endswith("\n\nDijawab: Production")
            late = await fake.tap(prompt, OWNER, "Canary")
            answer = await fake.wait_for(lambda: fake.callback_answer(late))
            assert answer["text"] == "Pertanyaan ini sudah berakhir."
