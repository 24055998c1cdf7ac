"""`askbridge doctor` and config errors, as a new user meets them: all problems at once, plainly."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

import pytest

from bridge.cli.doctor import run_doctor
from tests.harness import free_port

AGENT = '[[agents]]\nname = "a"\ntoken_env = "DOC_AGENT_TOKEN"\nsurfaces = ["web"]\n'


async def doctor(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "askbridge.toml"
    path.write_text(f'data_dir = "{tmp_path}"\n' + text)
    code = await run_doctor(argparse.Namespace(config=str(path)))
    return code, capsys.readouterr().out


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("DOC_AGENT_TOKEN", "TELEGRAM_BOT_TOKEN", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN",
                "ASKBRIDGE_WEB_TOKEN", "ASKBRIDGE_CONFIG"):
        monkeypatch.delenv(var, raising=False)


async def test_every_missing_variable_is_reported_in_one_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = await doctor(tmp_path, AGENT + "[telegram]\n[slack]\n", capsys)
    assert code == 1
    for var in ("DOC_AGENT_TOKEN", "TELEGRAM_BOT_TOKEN", "SLACK_BOT_TOKEN", "ASKBRIDGE_WEB_TOKEN"):
        assert f"${var}" in out, out


async def test_typos_get_the_nearest_key_not_pydantic_words(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = await doctor(tmp_path, "[server]\nprot = 1\n" + AGENT, capsys)
    assert code == 1 and 'server.prot: unknown key "prot"; did you mean "port"?' in out
    code, out = await doctor(tmp_path, AGENT + "[telegrm]\n", capsys)
    assert code == 1 and 'did you mean "telegram"?' in out
    code, out = await doctor(tmp_path, AGENT + '[slack]\nbot_token = "x"\n', capsys)
    assert 'did you mean "bot_token_env"?' in out
    code, out = await doctor(tmp_path, '[store]\npath = "a.db"\nurl = "postgresql://x"\n', capsys)
    assert "Set either store.path (SQLite) or store.url (PostgreSQL), not both." in out
    for pydantic_words in ("Extra inputs", "Value error", "extra_forbidden"):
        assert pydantic_words not in out


async def test_a_placeholder_url_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOC_AGENT_TOKEN", "t")
    monkeypatch.setenv("ASKBRIDGE_WEB_TOKEN", "w")
    monkeypatch.setenv("SMS_SECRET", "s")
    code, out = await doctor(tmp_path, AGENT + '[webhooks.sms]\nurl = '
                             '"https://sms-gateway.example/send"\nsecret_env = "SMS_SECRET"\n',
                             capsys)
    assert code == 1 and "webhooks.sms.url" in out and "example address" in out


async def test_slack_unreachable_is_not_a_rejected_token(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    for var, value in (("DOC_AGENT_TOKEN", "t"), ("ASKBRIDGE_WEB_TOKEN", "w"),
                       ("SLACK_BOT_TOKEN", "xoxb-1"), ("SLACK_APP_TOKEN", "xapp-1")):
        monkeypatch.setenv(var, value)
    closed = f"http://127.0.0.1:{free_port()}/api/"
    with caplog.at_level(logging.WARNING):
        code, out = await doctor(tmp_path, AGENT + f'[slack]\nbase_url = "{closed}"\nretries = 0\n',
                                 capsys)
    assert code == 1 and f"Could not reach Slack at {closed}" in out
    assert "rejected" not in out
    assert not [r for r in caplog.records if "As you gave" in r.getMessage()]


async def test_webhook_channel_typo_is_named_plainly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = await doctor(tmp_path, AGENT + '[webhooks.sms]\nsecret_env = "S"\nurll = "x"\n',
                             capsys)
    assert code == 1 and 'sms.urll: unknown key "urll"; did you mean "url"?' in out
    assert "Extra inputs" not in out


async def test_a_quorum_that_can_never_be_met_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    people = ('[[people]]\nname = "ana"\ntelegram = 1\n[[people]]\nname = "budi"\ntelegram = 2\n'
              '[[people]]\nname = "cita"\n')
    owned = AGENT + 'owner = "ana"\n'
    code, out = await doctor(tmp_path, owned + people + '[[approvals]]\napprovers = ["ana", '
                             '"budi"]\nrequired = "all"\nexclude_requester = true\n', capsys)
    assert code == 1
    assert ("approvals[0] can never be met for the agent 'a': required = \"all\" needs 2 "
            "approvals but only 1 of its approvers may approve ('ana' is the agent's owner and "
            "exclude_requester = true keeps them from approving). Require fewer, add approvers, "
            "give them ids, or set exclude_requester = false.") in out, out
    code, out = await doctor(tmp_path, owned + people + '[[approvals]]\napprovers = ["budi", '
                             '"cita"]\nrequired = 2\n', capsys)
    assert code == 1 and "'cita' have no id on any platform" in out, out
    code, out = await doctor(tmp_path, owned + people + '[[approvals]]\nagent = "other"\n'
                             'approvers = ["ana", "budi"]\nrequired = "all"\n'
                             'exclude_requester = true\n', capsys)
    assert "can never be met" not in out  # the policy matches no agent this owner acts for
    code, out = await doctor(tmp_path, AGENT + '[[approvals]]\nrequired = 2\n', capsys)
    assert code == 1 and ("required = 2 needs a list of approvers: without names, one person "
                          "answering from two surfaces would count as two") in out, out
