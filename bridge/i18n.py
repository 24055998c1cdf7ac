"""Every word askbridge itself writes to a person goes through `tr(locale, message, **fields)`.

The message id is the English text itself (gettext style), so English needs no catalog and a
missing translation still reads correctly. Agents' own words (questions, labels) never pass here.
"""

from __future__ import annotations

from typing import Literal

LocaleName = Literal["en", "id"]
LOCALES: tuple[str, ...] = ("en", "id")
DEFAULT_LOCALE = "en"


def tr(locale: str, message: str, **fields: object) -> str:
    """`message` in `locale`, with `{name}` fields filled in."""
    text = message
    return text.format(**fields) if fields else text
