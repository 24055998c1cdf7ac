"""Every word askbridge itself writes to a person goes through `tr(locale, message, **fields)`.

The message id is the English text itself (gettext style), so English needs no catalog and a
missing translation still reads correctly. Agents' own words (questions, labels) never pass here.
Catalogs are gettext `.po` files under `bridge/text/locales/<locale>/LC_MESSAGES/askbridge.po`, read
with Babel on first use; `python -m bridge.text.i18n check` lists what a catalog still lacks.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Literal

from babel.dates import format_time
from babel.messages.pofile import read_po
from pydantic import AfterValidator

LocaleName = Literal["en", "id"]
LOCALES: tuple[str, ...] = ("en", "id")
DEFAULT_LOCALE = "en"
LOCALE_NAMES = {"en": "English", "id": "Bahasa Indonesia"}
"""Each locale in its own words, for language switches."""
DOMAIN = "askbridge"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locales"


def N_(message: str) -> str:  # noqa: N802 - gettext's name for "mark, translate later"
    """Mark a message kept in a constant for extraction; translate it later with `tr`."""
    return message


def catalog_path(locale: str) -> Path:
    return LOCALE_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def messages(locale: str) -> dict[str, str]:
    """The translated, non-fuzzy messages of `locale` (English text → translation)."""
    if locale == DEFAULT_LOCALE or locale not in LOCALES:
        return {}
    with catalog_path(locale).open("rb") as fh:
        catalog = read_po(fh, locale=locale, domain=DOMAIN)
    return {str(m.id): str(m.string) for m in catalog
            if m.id and isinstance(m.id, str) and m.string and not m.fuzzy}


def translations(locale: str) -> dict[str, str]:
    """Every translated message of `locale` (empty for English), e.g. for a page's own strings."""
    return dict(messages(locale))


def tr(locale: str, message: str, **fields: object) -> str:
    """`message` in `locale`, with `{name}` fields filled in."""
    text = messages(locale).get(message, message)
    return text.format(**fields) if fields else text


def check_locale(value: str) -> str:
    """A config value naming a locale; unknown ones are refused, naming those available."""
    if value not in LOCALES:
        raise ValueError(f"unknown locale {value!r}; askbridge speaks {', '.join(LOCALES)}")
    return value


Locale = Annotated[str, AfterValidator(check_locale)]
"""A pydantic field type for `locale` keys in config sections."""


def time_of_day(locale: str, at: datetime) -> str:
    """A time of day (UTC) in the locale's own form: `2:30 PM`, `14.30`."""
    utc = at.astimezone(UTC)
    return _short_time(locale, utc.hour, utc.minute)


@functools.lru_cache(maxsize=4096)
def _short_time(locale: str, hour: int, minute: int) -> str:
    """Babel's formatting costs ~0.1 ms and every prompt shows one or two times; the short
    form depends only on the hour and minute, so each is formatted once per locale."""
    at = datetime(2000, 1, 1, hour, minute, tzinfo=UTC)
    text = str(format_time(at, "short", tzinfo=UTC, locale=locale))
    return text.replace("\u202f", " ")  # CLDR's narrow space before AM/PM: plain text channels


def negotiate(accept_language: str | None, fallback: str = DEFAULT_LOCALE) -> str:
    """The best of our locales for an `Accept-Language` header (`id-ID,id;q=0.9,en;q=0.8`)."""
    ranked: list[tuple[float, int, str]] = []
    for n, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                continue
        base = tag.strip().lower().replace("_", "-").split("-")[0]
        if base in LOCALES and quality > 0:
            ranked.append((-quality, n, base))
    return min(ranked)[2] if ranked else fallback
