"""What a person wrote in a reply, without the quoted prompt, the client's "wrote:" line or
a signature.

Library: mail-parser-reply (maintained, many languages, the "On … wrote:" and Outlook
"From:/Sent:" headers, signatures, "Sent from my …") over email-reply-parser (unmaintained since
2020, English only) and quotequail (finds quotes but not signatures). It has no Indonesian, so
its language table is extended here with the words Gmail, Outlook, Apple Mail and Thunderbird
write in Indonesian — by subclassing, never by changing the library's own table.
"""

from __future__ import annotations

import re
from typing import Any

from mailparser_reply import EmailMessage as ReplyText

INDONESIAN: dict[str, Any] = {
    # Gmail: "Pada tanggal Sen, 30 Nov 2026 pukul 09.12 Ana <ana@example.org> menulis:";
    # Apple Mail: "Pada 30 Nov 2026, pukul 09.12, Ana <…> menulis:"; Thunderbird:
    # "Pada 30/11/26 09.12, Ana menulis:" — each possibly wrapped onto a second line.
    "wrote_header": r"^((?:> ?)*Pada\s(?:.+?\s?.+?)\s?menulis:)$",
    # Outlook: "Dari: … / Dikirim: … / Kepada: … / Subjek: …"
    "from_header": r"((?:(?:^|\n|\n(?:> ?)*)[* ]*(?:Dari|Dikirim|Terkirim|Kepada|Subjek|Perihal|"
                   r"Tanggal|Cc):[ *]*(?:\s{,2}).*){2,}(?:\n.*){,1})",
    "disclaimers": ["PERHATIAN:", "Penafian:"],
    "signatures": ["Salam,", "Hormat saya,", "Terima kasih,", "Makasih,", "Salam hangat,"],
    "sent_from": "Dikirim dari|Kirim dari",
}
QUOTED_LINE = re.compile(r"^\s*>")
SEPARATOR = re.compile(r"^\s*(?:[_-]{20,}|-+ ?Original Message ?-+)\s*$", re.IGNORECASE)
"""Outlook's line above the quoted message: when the person's words end right on it (no
signature, no blank line) the library leaves it with them, and `2` would read as free text."""
LANGUAGES = ["en", "id"]
LONG_LINE = 300
"""No client's "On … wrote:" or "From: …" line is longer. The library's patterns take time
growing with the square of a line's length (16,000 characters after "On " take half a
minute, with the event loop held), so a longer line goes past them as a placeholder."""
MAX_READ = 40_000
"""Characters of a reply looked at for the person's words (kept: 8,000): bounds the time too."""


class _Reply(ReplyText):  # type: ignore[misc]  # the library ships no type hints
    """The library's message, knowing Indonesian too."""

    def _get_language_regex(self, language: str, regex_key: str) -> str:
        if language == "id":
            value = INDONESIAN[regex_key]
            return "|".join(value) if isinstance(value, list) else str(value)
        return str(super()._get_language_regex(language, regex_key))


def own_words(text: str) -> str:
    """The newest part of a reply, signature and quotes removed; lines quoted with `>` inside
    it (a person answering between quoted lines) are dropped too."""
    long: dict[str, str] = {}

    def short(line: str) -> str:
        if len(line) <= LONG_LINE:
            return line
        key = f"\ue000{len(long)}\ue001"
        long[key] = line
        return f"> {key}" if QUOTED_LINE.match(line) else key

    shown = "\n".join(short(line) for line in text[:MAX_READ].splitlines())
    parsed = _Reply(text=shown, languages=list(LANGUAGES), keep_hyphen_lists=True).read()
    newest = parsed.replies[0].body if parsed.replies else shown
    lines = [long.get(line.strip(), line) for line in str(newest).splitlines()
             if not QUOTED_LINE.match(line)]
    while lines and (not lines[-1].strip() or SEPARATOR.match(lines[-1])):
        lines.pop()
    return "\n".join(lines).strip()
