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
LANGUAGES = ["en", "id"]


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
    parsed = _Reply(text=text, languages=list(LANGUAGES), keep_hyphen_lists=True).read()
    newest = parsed.replies[0].body if parsed.replies else text
    lines = [line for line in str(newest).splitlines() if not QUOTED_LINE.match(line)]
    return "\n".join(lines).strip()
