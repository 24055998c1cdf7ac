"""Label and header text rules: "Other" options, the (Recommended) marker, cutting by characters."""

from __future__ import annotations

import re
import unicodedata

SPACES = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""What trimming removes (exactly Python's `str.isspace`), spelled as a regex class body that
JSON Schema's regex dialect and Python's read alike (their `\\s` differ)."""
SPACE, NOT_SPACE = f"[{SPACES}]", f"[^{SPACES}]"
VISIBLE = r"[^\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
"""A character that is neither a space nor a control character: text needs one to be seen."""
_VISIBLE = re.compile(VISIBLE)


def visible(text: str) -> bool:
    """Whether `text` shows anything: not only spaces and control characters."""
    return _VISIBLE.search(text) is not None

RECOMMENDED = "(recommended)"
OTHER_LABELS = frozenset({"other", "others", "something else", "lainnya"})


def is_other_label(label: str) -> bool:
    """True for labels that only mean "something else" — free text is always on instead."""
    core = label.casefold().strip().rstrip(".…:").strip()
    return core in OTHER_LABELS


def is_recommended(label: str) -> bool:
    return label.casefold().rstrip().endswith(RECOMMENDED)


def strip_recommended(label: str) -> str:
    """`Staging (Recommended)` → `Staging`; other labels unchanged."""
    if is_recommended(label):
        return label.rstrip()[: -len(RECOMMENDED)].rstrip()
    return label


def _extends_cluster(ch: str, prev: str) -> bool:
    code = ord(ch)
    return (
        unicodedata.combining(ch) != 0
        or unicodedata.category(ch) in ("Mn", "Me", "Mc")
        or prev == "\u200d"
        or ch == "\u200d"
        or 0xFE00 <= code <= 0xFE0F
        or 0x1F3FB <= code <= 0x1F3FF
        or 0xE0020 <= code <= 0xE007F
    )


def cut_graphemes(text: str, limit: int) -> str:
    """The first `limit` user-perceived characters of `text`, never splitting one.

    Combining marks, zero-width joiners, variation selectors, skin tones and flag pairs stay
    with the character they belong to.
    """
    clusters: list[str] = []
    for ch in text:
        prev = clusters[-1][-1] if clusters else ""
        is_flag_half = 0x1F1E6 <= ord(ch) <= 0x1F1FF
        pairs_flag = (
            clusters
            and is_flag_half
            and 0x1F1E6 <= ord(prev or " ") <= 0x1F1FF
            and len(clusters[-1]) == 1
        )
        if clusters and (_extends_cluster(ch, prev) or pairs_flag):
            clusters[-1] += ch
        else:
            if len(clusters) == limit:
                break
            clusters.append(ch)
    return "".join(clusters)
