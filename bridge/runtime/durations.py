"""How long history is kept: a whole number and a unit (`90s`, `15m`, `12h`, `30d`), or `forever`."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BeforeValidator

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}
FOREVER = "forever"
_WANTED = ('use a duration such as "90s", "15m", "12h" or "30d" (a whole number and one unit: '
           's, m, h or d), or "forever" to keep every question')
_DURATION = re.compile(r"([1-9][0-9]{0,6})([smhd])")


def keep_seconds(text: str) -> int | None:
    """Seconds in `text`, or None for `forever`; ValueError saying what is accepted otherwise."""
    if text == FOREVER:
        return None
    found = _DURATION.fullmatch(text)
    if found is None:
        raise ValueError(_WANTED + f" (got {text!r}).")
    return int(found.group(1)) * UNITS[found.group(2)]


def _checked(value: object) -> str:
    if not isinstance(value, str):  # `keep = 30`: say what to write, not "a valid string"
        raise ValueError(_WANTED + f" (got {value!r}; write it as a quoted string).")
    keep_seconds(value)
    return value


Keep = Annotated[str, BeforeValidator(_checked)]
"""A `keep` setting, checked when the config is read."""
