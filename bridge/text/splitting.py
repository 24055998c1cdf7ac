"""One splitter for every surface: a long text becomes several messages, never a clipped one."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: this module stays pure
    from bridge.model.prompt import Prompt

_ZWJ = "\u200d"


def split_text(text: str, limit: int, *, last_room: int = 0) -> list[str]:
    """`text` in parts of at most `limit` characters, cut between lines.

    A line longer than `limit` is cut after a space, else between two graphemes (an accent
    stays on its letter, a flag or a family emoji stays whole). Nothing is lost or reordered
    but the newlines a cut falls on (parts neither start nor end with one), and no part is
    empty. The last part leaves `last_room` characters free (for a status line added there
    when the question ends).
    """
    if limit < 1 or last_room >= limit:
        raise ValueError(f"cannot split into parts of {limit} characters with {last_room} kept free")
    parts = _pack(text, limit)
    if parts and len(parts[-1]) + last_room > limit:
        parts[-1:] = _pack(parts[-1], limit - last_room)
    return parts


def split_escaped(text: str, limit: int, escape: Callable[[str], str], *,
                  last_room: int = 0) -> list[str]:
    """`split_text` for surfaces that escape markup (Slack's `&lt;`, Discord's `\\*`): the parts
    come back escaped, each within `limit` once escaped. The text is cut before escaping, so
    no cut falls inside an escape."""
    parts = split_text(text, limit, last_room=last_room)
    out: list[str] = []
    for n, part in enumerate(parts):
        out += _escaped(part, limit - (last_room if n == len(parts) - 1 else 0), escape)
    return out


def _escaped(part: str, limit: int, escape: Callable[[str], str]) -> list[str]:
    shown = escape(part)
    if len(shown) <= limit:
        return [shown]
    smaller = max(1, len(part) * limit // len(shown))  # shorter than `part`: this ends
    return [e for piece in split_text(part, smaller) for e in _escaped(piece, limit, escape)]


def caption(text: str, limit: int) -> str:
    """A caption a platform caps (a button's label, a modal's title, a toast): cut with `…` when
    longer. Only for captions of text shown whole elsewhere (the prompt's messages)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def status_room(prompt: Prompt) -> int:
    """Room for the longest status line the prompt can end with (`Answered: ` and every option
    label, with the surface's markup), so a finalization that adds it to the prompt's last part
    never outgrows the surface's limit."""
    return 60 + sum(len(label) + 2 for q in prompt.questions for label, _ in q.options)


def _pack(text: str, limit: int) -> list[str]:
    parts: list[str] = []
    current = ""
    for line in text.split("\n"):
        if len(line) > limit:
            pieces = _cut_line(line, limit)
            parts += [current, *pieces[:-1]]
            current = pieces[-1]
        elif len(current) + 1 + len(line) <= limit:
            current = f"{current}\n{line}"
        else:
            parts.append(current)
            current = line
    parts.append(current)
    trimmed = (p.strip("\n") for p in parts)
    return [p for p in trimmed if p]


def _cut_line(line: str, limit: int) -> list[str]:
    pieces: list[str] = []
    while len(line) > limit:
        space = line.rfind(" ", 0, limit)
        cut = space + 1 if space > 0 and _boundary(line, space + 1) else _grapheme_cut(line, limit)
        pieces.append(line[:cut])
        line = line[cut:]
    return [*pieces, line]


def _grapheme_cut(line: str, limit: int) -> int:
    """The last grapheme boundary at or before `limit`; `limit` itself when one grapheme is
    longer than a whole part (a cut inside it beats an endless loop)."""
    for cut in range(limit, 0, -1):
        if _boundary(line, cut):
            return cut
    return limit


def _boundary(text: str, i: int) -> bool:
    """Whether a cut between `text[i - 1]` and `text[i]` keeps every grapheme whole
    (a practical subset of UAX #29: marks, joiners, selectors, modifiers, flags, CR LF)."""
    before, after = text[i - 1], text[i]
    if (before, after) == ("\r", "\n") or _ZWJ in (before, after):
        return False
    code = ord(after)
    if (unicodedata.category(after) in ("Mn", "Mc", "Me") or 0xFE00 <= code <= 0xFE0F
            or 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F
            or 0xE0100 <= code <= 0xE01EF):
        return False
    if _regional(after) and _regional(before):
        run = 0
        while i - run - 1 >= 0 and _regional(text[i - run - 1]):
            run += 1
        return run % 2 == 0  # flags are pairs: cut only between two whole ones
    return True


def _regional(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF
