"""Languages: every catalog complete, text in the locale's words and times, replies read in all."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bridge.model.contract import AskRequest, AskResult, Question
from bridge.runtime.config import ConfigError, parse_config
from bridge.text.i18n import LOCALES, negotiate, time_of_day, tr, translations
from bridge.text.i18n.catalogs import ROOT, Found, _python, extract, gaps, translated_locales, web_messages
from bridge.text.parsing import Parsed, Skip, parse_reply
from bridge.text.rendering import expiry_line, prompt_text, status_line


def questions(*specs: dict[str, Any]) -> list[Question]:
    return list(AskRequest.model_validate({"questions": list(specs)}).questions)


DEPLOY = {"id": "env", "header": "Deploy", "question": "Where?",
          "options": [{"label": "Staging (Recommended)"}, {"label": "Production"},
                      {"label": "Canary"}]}
CHECKS = {"id": "checks", "header": "Checks", "question": "Which checks?", "multiSelect": True,
          "options": [{"label": "Lint"}, {"label": "Test"}, {"label": "Build"}]}


# catalogs -----------------------------------------------------------------------------------


def test_every_message_is_translated_in_every_locale() -> None:
    """Fails naming each message a catalog lacks; `python -m bridge.text.i18n update` adds them."""
    found = extract()
    assert not found.problems
    assert len(found.messages) > 50, "the extractor found askbridge's messages"
    for locale in translated_locales():
        g = gaps(locale, set(found.messages))
        assert not g.missing, f"{locale} lacks {g.missing}"
        assert not g.empty, f"{locale} has untranslated {g.empty}"
        assert not g.fuzzy, f"{locale} has fuzzy {g.fuzzy}"


def test_translations_keep_their_fields() -> None:
    """A translation that drops or renames `{field}` would raise or lie at run time."""
    for locale in translated_locales():
        for message, text in translations(locale).items():
            assert sorted(_fields(text)) == sorted(_fields(message)), (locale, message)


def _fields(text: str) -> list[str]:
    import string
    return [name for _, name, _, _ in string.Formatter().parse(text) if name]


def test_extractor_sees_python_web_and_html_messages() -> None:
    found = extract()
    assert "Other…" in found.messages  # N_ constant in bridge/text/rendering.py
    assert "Your questions" in found.messages  # adapters/webhook/render.py
    assert "Submit" in web_messages() and "Sessions" in web_messages()  # panel.js, index.html


def test_extractor_refuses_messages_it_cannot_read(tmp_path: Path) -> None:
    source = ROOT / "bridge" / "_i18n_probe_tmp.py"
    source.write_text('x = tr(loc, f"Hello {name}")\ny = tr(loc, "Fine")\n', encoding="utf-8")
    try:
        found = Found()
        _python(source, found)
    finally:
        source.unlink()
    assert list(found.messages) == ["Fine"]
    assert len(found.problems) == 1 and "literal" in found.problems[0]


def test_check_command_passes_and_says_so() -> None:
    done = subprocess.run([sys.executable, "-m", "bridge.text.i18n", "check"], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every one translated" in done.stdout


def test_unknown_message_falls_back_to_english() -> None:
    assert tr("id", "No such message {n}", n=2) == "No such message 2"
    assert tr("id", "Skip") == "Lewati"
    assert tr("en", "Answered: {labels}", labels="A") == "Answered: A"


# times and negotiation ----------------------------------------------------------------------


def test_times_in_the_locales_own_form() -> None:
    at = datetime(2026, 1, 1, 14, 30, tzinfo=UTC)
    assert time_of_day("id", at) == "14.30"
    assert time_of_day("en", at) == "2:30 PM"
    now = at - timedelta(minutes=12)
    assert expiry_line(at, "id", now) == "Kedaluwarsa pukul 14.30 UTC (dalam 12 menit)."
    assert expiry_line(at, "en", now) == "Expires at 2:30 PM UTC (in 12 min)."


@pytest.mark.parametrize(("header", "expected"), [
    ("id-ID,id;q=0.9,en-US;q=0.8,en;q=0.7", "id"), ("en-US,en;q=0.9,id;q=0.8", "en"),
    ("fr-FR,fr;q=0.9", "en"), ("fr;q=1, id;q=0.5", "id"), ("", "en"), ("id;q=0, en", "en"),
    ("ID", "id"), ("garbage;;q=x,,", "en"),
])
def test_accept_language(header: str, expected: str) -> None:
    assert negotiate(header) == expected


# rendering ----------------------------------------------------------------------------------


def test_indonesian_prompt_and_status_lines() -> None:
    expires = datetime.now(UTC) + timedelta(minutes=10)
    text = prompt_text(questions(DEPLOY), expires, "id")
    assert "1) Staging (Recommended)" in text and "Lainnya: balas dengan jawaban" in text
    assert 'Balas "lewati" untuk melewati.' in text and "Kedaluwarsa pukul" in text
    many = prompt_text(questions(DEPLOY, CHECKS), expires, "id")
    assert many.startswith("2 pertanyaan:") and "(pilih satu atau lebih)" in many
    qs = questions(DEPLOY)
    assert status_line(AskResult.answered({"env": ["Production"]}), qs, "id") == \
        "Dijawab: Production"
    assert status_line(AskResult.answered({"env": ["my words"]}), qs, "id") == "Dijawab"
    expected = {"skipped": "Dilewati", "expired": "Kedaluwarsa", "cancelled": "Dibatalkan"}
    for reason, line in expected.items():
        assert status_line(AskResult.no_answer(reason), qs, "id") == line  # type: ignore[arg-type]


# parsing: every locale's words at once ------------------------------------------------------


@pytest.mark.parametrize("reply", ["1 dan 3", "lint dan build", "Lint DAN Build", "1 and 3",
                                   "3 dan 1, 1"])
def test_conjunctions_of_every_locale(reply: str) -> None:
    outcome = parse_reply(questions(CHECKS), reply)
    assert isinstance(outcome, Parsed) and outcome.answers == {"checks": ["Lint", "Build"]}


@pytest.mark.parametrize("reply", ["skip", "/skip", "lewati", "/lewati", "Lewati!"])
def test_skip_words_of_every_locale(reply: str) -> None:
    assert isinstance(parse_reply(questions(DEPLOY), reply), Skip)


def test_a_label_holding_a_conjunction_still_matches_whole() -> None:
    spec = {**CHECKS, "options": [{"label": "Lint dan Build"}, {"label": "Test"}]}
    outcome = parse_reply(questions(spec), "lint dan build, 2")
    assert isinstance(outcome, Parsed)
    assert outcome.answers == {"checks": ["Lint dan Build", "Test"]}


def test_problems_are_written_in_the_reply_locale() -> None:
    outcome = parse_reply(questions(DEPLOY), "7", locale="id")
    assert isinstance(outcome, Parsed)
    assert "Tidak ada pilihan 7: balas dengan angka 1–3" in outcome.problems["env"]


# config -------------------------------------------------------------------------------------


def _config(**extra: Any) -> dict[str, Any]:
    agent = {"name": "a", "token_env": "T", "surfaces": ["web"], **extra.pop("agent", {})}
    return {"agents": [agent], **extra}


def test_agent_locale_defaults_to_english_and_refuses_unknown_ones() -> None:
    assert parse_config(_config()).agents[0].locale == "en"
    assert parse_config(_config(agent={"locale": "id"})).agents[0].locale == "id"
    with pytest.raises(ConfigError) as refused:
        parse_config(_config(agent={"locale": "fr"}))
    assert "fr" in str(refused.value) and ", ".join(LOCALES) in str(refused.value)


def test_platform_sections_refuse_unknown_locales() -> None:
    from bridge.runtime.plugins import discover
    from bridge.server.composition import make_adapters

    with pytest.raises(ConfigError, match=r"\[web\] has problems: locale: .*en, id"):
        make_adapters(parse_config(_config(web={"locale": "de"})),
                      {"T": "t", "ASKBRIDGE_WEB_TOKEN": "w"}, discover())
    raw = _config(agent={"surfaces": ["webhook:sms:+1"]},
                  webhooks={"sms": {"secret_env": "S", "locale": "xx"}})
    with pytest.raises(ConfigError, match="unknown locale 'xx'; askbridge speaks en, id"):
        make_adapters(parse_config(raw), {"S": "s", "T": "t", "ASKBRIDGE_WEB_TOKEN": "w"},
                      discover())


# a surface's own locale wins ----------------------------------------------------------------


async def test_a_channels_locale_wins_over_the_agents(tmp_path: Path) -> None:
    import asyncio

    from tests.adapters.webhook.support import post_reply
    from tests.fakes.gateway import gateway
    from tests.harness import WEBHOOK_SECRET, make_config, running, until

    async with gateway(WEBHOOK_SECRET) as gw:
        config = make_config(tmp_path, webhooks={"sms": {"secret_env": "HOOK_SECRET",
                                                         "url": gw.url, "locale": "id"}})
        assert config.agents[0].locale == "en"
        async with running(config) as r, r.client() as client, r.http() as http:
            ask = asyncio.create_task(client.ask({"questions": [DEPLOY]}))
            prompt = (await until(gw.prompts))[0]
            assert "Kedaluwarsa pukul" in prompt["text"] and "Expires" not in prompt["text"]
            wrong = (await post_reply(http, "9")).json()
            assert wrong == {"accepted": False, "reply": "Deploy: Tidak ada pilihan 9: balas "
                             "dengan angka 1–3, teks pilihan, atau kata-kata Anda sendiri."}
            right = (await post_reply(http, "2")).json()
            assert right == {"accepted": True, "reply": "Terima kasih, tercatat: Production."}
            assert (await asyncio.wait_for(ask, 10)).answer_map() == {"env": ["Production"]}
            status = (await until(gw.statuses))[0]
            assert status["text"] == "Deploy: Dijawab: Production"
            late = (await post_reply(http, "1", replyTo=prompt["questionId"])).json()
            assert late == {"accepted": False, "reply": "Pertanyaan ini sudah berakhir."}


def test_native_controls_are_written_in_the_prompts_locale() -> None:
    from bridge.text.rendering import native_controls

    english = native_controls("en")
    indonesian = native_controls("id")
    assert (english.done, english.submit, english.back, english.next) == (
        "Done", "Submit", "Back", "Next")
    assert (indonesian.done, indonesian.submit, indonesian.back, indonesian.next,
            indonesian.other, indonesian.skip) == (
        "Selesai", "Kirim", "Kembali", "Berikutnya", "Lainnya…", "Lewati")
