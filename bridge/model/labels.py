"""Label and header text rules: "Other" options, the (Recommended) marker, cutting by characters."""

from __future__ import annotations

import unicodedata

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
