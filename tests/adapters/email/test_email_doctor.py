"""`askbridge doctor` logs in to SMTP and to IMAP, and says which one failed and why."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.doctor import run_doctor
from tests.adapters.email.rig import mail_rig

AGENT = '[[agents]]\nname = "a"\ntoken_env = "AGENT_TOKEN"\nsurfaces = ["email:ana@example.org"]\n'


def toml(section: dict[str, Any]) -> str:
    lines = ["[email]"]
    for key, value in section.items():
        if isinstance(value, bool):
            lines.append(f"{key} = {'true' if value else 'false'}")
        elif isinstance(value, int | float):
            lines.append(f"{key} = {value}")
        elif isinstance(value, list):
            lines.append(f"{key} = [{', '.join(repr(v).replace(chr(39), chr(34)) for v in value)}]")
        else:
            lines.append(f'{key} = "{value}"')
    return "\n".join(lines) + "\n"


async def doctor(tmp_path: Path, section: dict[str, Any], env: dict[str, str],
                 monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("ASKBRIDGE_WEB_TOKEN", "doctor-web-token-0123456789")
    path = tmp_path / "askbridge.toml"
    path.write_text(f'data_dir = "{tmp_path}"\n' + AGENT + toml(section))
    await run_doctor(argparse.Namespace(config=str(path)))
    return capsys.readouterr().out


async def test_doctor_logs_in_to_both_and_names_the_one_that_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    async with mail_rig() as rig:
        section = rig.section["email"]
        out = await doctor(tmp_path, section, rig.env, monkeypatch, capsys)
        assert "ok    email: SMTP logged in at 127.0.0.1" in out, out
        assert "IMAP logged in at 127.0.0.1, mailbox INBOX" in out, out

        out = await doctor(tmp_path, section, {**rig.env, "SMTP_PASSWORD": "wrong"},
                           monkeypatch, capsys)
        assert "FAIL  email: SMTP login failed: the server answered 535" in out, out
        assert "check smtp_user_env and smtp_password_env" in out

        out = await doctor(tmp_path, section, {**rig.env, "IMAP_PASSWORD": "wrong"},
                           monkeypatch, capsys)
        assert "FAIL  email: IMAP login failed" in out and "check imap_user_env" in out, out
        assert "wrong" not in out.replace("IMAP login failed", ""), "no secret is printed"

        out = await doctor(tmp_path, {**section, "imap_port": section["smtp_port"],
                                      "imap_tls": "tls"}, rig.env, monkeypatch, capsys)
        assert "FAIL  email: IMAP: 127.0.0.1" in out, out
