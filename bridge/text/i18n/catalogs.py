"""Find every message askbridge writes in its source, and compare them with each `.po` catalog."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from bridge.text.i18n import DEFAULT_LOCALE, DOMAIN, LOCALES, catalog_path

ROOT = Path(__file__).resolve().parents[3]
"""Where `bridge/` and `adapters/` live (the repository, or site-packages once installed)."""
WEB_STATIC = ROOT / "adapters" / "web" / "static"
_JS_CALL = re.compile(r'\bt\(\s*"((?:[^"\\\n]|\\.)*)"')
_JS_NON_LITERAL = re.compile(r'\bt\(\s*(?!")[^\s)]')
TRANSLATED_ATTRS = ("placeholder", "aria-label", "title")


@dataclass
class Found:
    """Messages by id with where each appears, and calls whose message cannot be read."""

    messages: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def add(self, message: str, where: str) -> None:
        self.messages.setdefault(message, []).append(where)


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _called(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


Helpers = dict[str, tuple[int, str]]
"""Functions that hand a parameter on as a message: name → that parameter's position (not
counting `self`/`cls`) and name. `tr` itself is one: its message is the second argument."""


def _message_arg(node: ast.Call, helpers: Helpers) -> ast.expr | None:
    """The argument a call to `tr` or a helper passes as its message, if it passes one."""
    position, name = helpers[_called(node)]
    if len(node.args) > position and not isinstance(node.args[position], ast.Starred):
        return node.args[position]
    return next((k.value for k in node.keywords if k.arg == name), None)


def helpers(trees: list[ast.Module]) -> Helpers:
    """`tr`, and every function whose parameter reaches `tr` (or another helper) as the message,
    so `self._problem(request, 404, "There is no such question.")` is read like `tr(loc, "…")`.
    Matched by name: a same-named function elsewhere is read alike (an extra message at worst)."""
    found: Helpers = {"tr": (1, "message")}
    grew = True
    while grew:  # a helper may hand its parameter to another helper: follow until nothing new
        grew = False
        for tree in trees:
            for fn in ast.walk(tree):
                if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) or fn.name in found:
                    continue
                params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
                params = params[1:] if params[:1] in (["self"], ["cls"]) else params
                for call in ast.walk(fn):
                    if isinstance(call, ast.Call) and _called(call) in found:
                        arg = _message_arg(call, found)
                        if isinstance(arg, ast.Name) and arg.id in params:
                            found[fn.name] = (params.index(arg.id), arg.id)
                            grew = True
                            break
    return found


def _plain_constants(tree: ast.Module) -> set[str]:
    """Module constants holding a bare string literal (not marked with N_)."""
    return {node.targets[0].id for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and _literal(node.value) is not None}


def _python(path: Path, tree: ast.Module, found: Found, known: Helpers) -> None:
    where = str(path.relative_to(ROOT))
    unmarked = _plain_constants(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _called(node)
        if name == "N_" and node.args and _literal(node.args[0]) is not None:
            found.add(str(_literal(node.args[0])), f"{where}:{node.lineno}")
        elif name in known and (message := _message_arg(node, known)) is not None:
            text = _literal(message)
            if text is not None:
                found.add(text, f"{where}:{node.lineno}")
            elif isinstance(message, ast.Name) and message.id in unmarked:
                found.problems.append(f"{where}:{node.lineno}: mark {message.id} with N_ so its "
                                      "message is extracted")
            elif not isinstance(message, ast.Name | ast.Attribute | ast.Subscript):
                # an f-string or concatenation can never match a catalog entry
                found.problems.append(f"{where}:{node.lineno}: {name}() needs a literal message "
                                      "(or a constant marked with N_)")


def _javascript(path: Path, found: Found) -> None:
    where = str(path.relative_to(ROOT))
    text = path.read_text(encoding="utf-8")
    for match in _JS_CALL.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        found.add(json.loads(f'"{match.group(1)}"'), f"{where}:{line}")
    for match in _JS_NON_LITERAL.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        found.problems.append(f'{where}:{line}: t() needs a "double-quoted" literal message')


class _Marked(HTMLParser):
    """Text of elements marked `data-t`, and attributes listed in `data-t-attrs`."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []
        self._take = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self._take = "data-t" in values
        for name in (values.get("data-t-attrs") or "").split():
            if values.get(name):
                self.messages.append(str(values[name]))

    def handle_data(self, data: str) -> None:
        if self._take and data.strip():
            self.messages.append(data.strip())
        self._take = False


def _html(path: Path, found: Found) -> None:
    parser = _Marked()
    parser.feed(path.read_text(encoding="utf-8"))
    for message in parser.messages:
        found.add(message, str(path.relative_to(ROOT)))


def _web(found: Found) -> None:
    for path in sorted(WEB_STATIC.glob("*.js")):
        if path.name != "i18n.js":  # it defines t() itself
            _javascript(path, found)
    for path in sorted(WEB_STATIC.glob("*.html")):
        _html(path, found)


def extract(root: Path = ROOT) -> Found:
    """Every message in `tr(…)`/`N_(…)` calls, the web UI's `t("…")` calls and marked HTML."""
    found = Found()
    paths = [path for folder in ("bridge", "adapters") for path in sorted((root / folder).rglob("*.py"))]
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in paths]
    known = helpers(trees)
    for path, tree in zip(paths, trees, strict=True):
        _python(path, tree, found, known)
    _web(found)
    return found


def web_messages() -> set[str]:
    """The messages the web UI's scripts and page use (what `/ui/api/i18n` hands the page)."""
    found = Found()
    _web(found)
    return set(found.messages)


def load(locale: str) -> Catalog:
    with catalog_path(locale).open("rb") as fh:
        return read_po(fh, locale=locale, domain=DOMAIN)


@dataclass
class Gaps:
    """What one catalog lacks: ids not in it, entries without text or marked fuzzy, and extras."""

    missing: list[str]
    empty: list[str]
    fuzzy: list[str]
    obsolete: list[str]

    @property
    def ok(self) -> bool:
        return not (self.missing or self.empty or self.fuzzy)


def gaps(locale: str, wanted: set[str]) -> Gaps:
    catalog = load(locale)
    have = {str(m.id): m for m in catalog if m.id}
    return Gaps(
        missing=sorted(wanted - have.keys()),
        empty=sorted(i for i in wanted & have.keys() if not have[i].string),
        fuzzy=sorted(i for i in wanted & have.keys() if have[i].fuzzy and have[i].string),
        obsolete=sorted(have.keys() - wanted),
    )


def update(locale: str, found: Found) -> int:
    """Add every missing message (untranslated) and drop obsolete ones; returns how many to do."""
    catalog = load(locale)
    for message in found.messages:
        if message not in catalog:
            catalog.add(message, "")
    for message in gaps(locale, set(found.messages)).obsolete:
        catalog.delete(message)
    catalog.project, catalog.version, catalog.msgid_bugs_address = "askbridge", "1", ""
    catalog.last_translator = catalog.language_team = "askbridge"
    with catalog_path(locale).open("wb") as fh:
        write_po(fh, catalog, width=100, sort_output=True, omit_header=False,
                 include_previous=False, no_location=True)
    return len(gaps(locale, set(found.messages)).empty)


def translated_locales() -> list[str]:
    return [loc for loc in LOCALES if loc != DEFAULT_LOCALE]
