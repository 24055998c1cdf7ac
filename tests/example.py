"""The shipped example config, with every commented-out adapter section switched on."""

from __future__ import annotations

import re
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "config" / "askbridge.example.toml"


def uncommented() -> str:
    """The example with every commented-out adapter table and key switched on."""
    lines = []
    inside = False
    for line in EXAMPLE.read_text().splitlines():
        if re.match(r"^# \[(telegram|discord|slack|email|webhooks\.sms)\]$", line):
            inside = True
        elif not line.strip():
            inside = False
        if inside and re.match(r"^# (\[|[a-z_]+ = )", line):
            line = line[2:]
        lines.append(line)
    text = "\n".join(lines)
    assert "[[agents]]" in text
    return text
