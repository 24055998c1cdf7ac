"""config/askbridge.service: systemd itself accepts it, it is hardened as docs/deploy.md says,
and the command it starts is one askbridge knows."""

from __future__ import annotations

import configparser
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from bridge.cli.command import parser

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "config" / "askbridge.service"
HARDENING = {"DynamicUser": "yes", "StateDirectory": "askbridge", "StateDirectoryMode": "0700",
             "NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes",
             "PrivateTmp": "yes", "RestartPreventExitStatus": "2"}


def service() -> configparser.SectionProxy:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    unit.read_string(UNIT.read_text())
    return unit["Service"]


def test_the_unit_is_hardened_and_starts_serve_with_a_config() -> None:
    section = service()
    for key, value in HARDENING.items():
        assert section.get(key) == value, key
    command = shlex.split(section["ExecStart"])
    assert command[0].endswith("/askbridge")
    args = parser().parse_args(command[1:])
    assert args.command == "serve" and args.config == "/etc/askbridge/askbridge.toml"
    assert "deploy.md" in UNIT.read_text()
    guide = (ROOT / "docs" / "deploy.md").read_text()
    assert "config/askbridge.service" in guide and "systemctl enable --now askbridge" in guide


def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze is missing: .ci/run installs it (apt-get install systemd)"
    # ExecStart must name an existing program: point it at this environment's askbridge.
    here = Path(sys.executable).parent / "askbridge"
    unit = tmp_path / "askbridge.service"
    unit.write_text(UNIT.read_text().replace("/opt/askbridge/bin/askbridge", str(here)))
    checked = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                             timeout=60)
    assert checked.returncode == 0, checked.stderr
    assert "askbridge.service" not in checked.stderr, checked.stderr  # no warning about it
