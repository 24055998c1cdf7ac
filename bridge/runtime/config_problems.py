"""Config problems in askbridge's words: each by its key, an unknown key with the one it is near."""

from __future__ import annotations

import difflib
import types
import typing
from typing import Any

from pydantic import BaseModel, ValidationError

from bridge.model.validation import format_loc
from bridge.text.i18n import tr


def _model_in(annotation: Any) -> Any:
    """A field's type, looking through `X | None` (lists and dicts stay: a key steps into them)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return inner[0] if len(inner) == 1 else annotation
    return annotation


def known_keys(root: Any, path: tuple[int | str, ...]) -> list[str]:
    """The keys a table at `path` under `root` (a model, or a dict/list of models) accepts."""
    current = _model_in(root)
    for part in path:
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            if field is None:
                return []
            current = _model_in(field.annotation)
        elif typing.get_origin(current) in (dict, list):  # a channel name or a list index
            current = _model_in(typing.get_args(current)[-1])
        else:
            return []
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def unknown_key(key: str, known: list[str]) -> str:
    """`unknown key "prot"; did you mean "port"?`, or the keys it could be."""
    near = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if near:
        return tr("en", "unknown key \"{key}\"; did you mean \"{near}\"?", key=key, near=near[0])
    if known:
        return tr("en", "unknown key \"{key}\"; the keys here are {keys}.", key=key,
                  keys=", ".join(known))
    return tr("en", "unknown key \"{key}\".", key=key)


def config_problems(exc: ValidationError, root: Any) -> list[str]:
    """Each problem as `loc: what to do`, in askbridge's words rather than pydantic's."""
    lines = []
    for e in exc.errors():
        loc = tuple(e["loc"])
        if e["type"] == "extra_forbidden":
            msg = unknown_key(str(loc[-1]), known_keys(root, loc[:-1]))
        elif e["type"] == "value_error":  # our own validators' sentences, without "Value error,"
            msg = str(e.get("ctx", {}).get("error", e["msg"]))
        else:
            msg = str(e["msg"])
        lines.append(f"{format_loc(loc)}: {msg}" if loc else msg)
    return lines
