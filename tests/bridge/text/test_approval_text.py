"""What approvals say and read: the prompt in full, decisions in either language, status lines."""

from __future__ import annotations

from bridge.model.approval import parse_approval_request
from bridge.text.approval_text import (
    approval_text,
    decided_line,
    parse_decision,
)
from bridge.text.splitting import split_text


def test_replies_read_as_decisions_in_every_language() -> None:
    assert parse_decision("approve").choice == "approve"  # type: ignore[union-attr]
    assert parse_decision(" Setuju ").choice == "approve"  # type: ignore[union-attr]
    assert parse_decision("1").choice == "approve"  # type: ignore[union-attr]
    reject = parse_decision("reject: too risky today")
    assert reject is not None and (reject.choice, reject.reason) == ("reject", "too risky today")
    tolak = parse_decision("tolak terlalu berisiko")
    assert tolak is not None and tolak.reason == "terlalu berisiko"
    assert parse_decision("2").reason == ""  # type: ignore[union-attr]
    assert parse_decision("3").choice == "allow"  # type: ignore[union-attr]
    assert parse_decision("Izinkan 1 jam").choice == "allow"  # type: ignore[union-attr]
    assert parse_decision("allow 1h").choice == "allow"  # type: ignore[union-attr]
    quoted = parse_decision("approve #ABCDEF123456")
    assert quoted is not None and quoted.quoted == "abcdef123456"
    for other in ("yes please", "allow everything forever", "4", "", "skip"):
        assert parse_decision(other) is None, other


def test_the_prompt_shows_every_argument_and_is_split_never_clipped() -> None:
    arguments = {f"key_{n}": "v" * 50 for n in range(80)}
    request = parse_approval_request({"action": "Write files", "tool": "fs.write",
                                      "risk": "low", "arguments": arguments})
    text = approval_text(request, request.payload_hash, "id", "Kedaluwarsa")
    assert "Alat: fs.write" in text and "Risiko: rendah" in text
    assert f"Muatan: #{request.payload_hash[:12]}" in text
    parts = split_text(text, 1000)
    assert len(parts) > 3 and all(len(p) <= 1000 for p in parts)
    joined = "\n".join(parts)
    assert all(f'"key_{n}": "{"v" * 50}"' in joined for n in range(80))


def test_status_lines() -> None:
    assert decided_line({"decision": ["approve"], "by": ["ana", "budi"]}, "en") == \
        "Approved by ana, budi"
    assert decided_line({"decision": ["reject"], "by": ["ana"], "reason": ["no"]}, "id") == \
        "Ditolak oleh ana: no"


def test_an_approval_is_the_word_alone() -> None:
    """`approve only on staging` approves nothing (as `allow everything forever` allows
    nothing): a plain approval is the word or number alone, a full stop or `#…` beside it."""
    for text in ("approve only on staging", "1 question first: why 3?", "setuju kalau besok",
                 "Approve, but not production", "approve #abcdef123456 if tests pass"):
        assert parse_decision(text) is None, text
    for text in ("approve.", "Approve!", "setuju", "1", "approve #abcdef123456", "#abcdef approve"):
        found = parse_decision(text)
        assert found is not None and found.choice == "approve", text
