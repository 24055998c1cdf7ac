"""Languages: every catalog complete, the extractor strict, times and Accept-Language in the
locale's own form."""

from __future__ import annotations

import ast
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bridge.text.i18n import catalog_path, catalogs, negotiate, time_of_day, tr, translations
from bridge.text.i18n.catalogs import (
    ROOT,
    Found,
    _python,
    extract,
    gaps,
    helpers,
    translated_locales,
    update,
    web_messages,
)
from bridge.text.rendering import expiry_line

# catalogs -----------------------------------------------------------------------------------


def test_every_message_is_translated_in_every_locale() -> None:
    """Fails naming each message a catalog lacks; `python -m bridge.text.i18n update` adds them."""
    found = extract()
    assert not found.problems
    assert len(found.messages) > 50, "the extractor found askbridge's messages"
    for locale in translated_locales():
        g = gaps(locale, set(found.messages))
        assert not g.missing, f"{locale} lacks {g.missing}"
        assert not g.empty, f"{locale} has untranslated {g.empty}"
        assert not g.fuzzy, f"{locale} has fuzzy {g.fuzzy}"


def test_translations_keep_their_fields() -> None:
    """A translation that drops or renames `{field}` would raise or lie at run time."""
    for locale in translated_locales():
        for message, text in translations(locale).items():
            assert sorted(_fields(text)) == sorted(_fields(message)), (locale, message)


def _fields(text: str) -> list[str]:
    import string
    return [name for _, name, _, _ in string.Formatter().parse(text) if name]


def test_extractor_sees_python_web_and_html_messages() -> None:
    found = extract()
    assert "Other…" in found.messages  # N_ constant in bridge/text/rendering.py
    assert "Your questions" in found.messages  # adapters/webhook/render.py
    assert "Submit" in web_messages() and "Sessions" in web_messages()  # panel.js, index.html
    assert "Risk" in found.messages  # the answer page's facts (bridge/http/answer_html.py)
    assert 'Send {"action": "answer:<option number>"}.' in found.messages  # PwaRoutes._problem


def _probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str) -> Found:
    # The probe lives under tmp_path, never in bridge/: a test running at the same time on another
    # pytest-xdist worker (the catalog checks above, `i18n check`) would read it as askbridge's own.
    monkeypatch.setattr(catalogs, "ROOT", tmp_path)
    source = tmp_path / "bridge" / "_i18n_probe_tmp.py"
    source.parent.mkdir()
    source.write_text(code, encoding="utf-8")
    tree = ast.parse(code)
    found = Found()
    _python(source, tree, found, helpers([tree]))
    return found


def test_extractor_refuses_messages_it_cannot_read(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    found = _probe(tmp_path, monkeypatch, 'x = tr(loc, f"Hello {name}")\ny = tr(loc, "Fine")\n')
    assert list(found.messages) == ["Fine"]
    assert len(found.problems) == 1 and "literal" in found.problems[0]


def test_extractor_reads_messages_handed_to_helpers(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A message passed to a function that hands it to tr() is extracted where it is written,
    through helpers of helpers; a bare string constant given to tr() must be marked N_."""
    found = _probe(tmp_path, monkeypatch, """
PLAIN = "Not marked"
class Routes:
    def _problem(self, request, status, msg):
        return error(status, tr(self.locale, msg))
    def _gone(self, request, what):
        return self._problem(request, 404, what)
    async def route(self, request):
        self._problem(request, 422, "Send a body.")
        self._gone(request, what="There is no such thing.")
        return tr(loc, PLAIN)
""")
    assert sorted(found.messages) == ["Send a body.", "There is no such thing."]
    assert len(found.problems) == 1 and "mark PLAIN with N_" in found.problems[0]


def test_update_drops_no_message_in_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -m bridge.text.i18n update` on this tree keeps every translation: each message in
    a catalog is one the extractor finds (none is used only in a way it cannot read)."""
    for locale in translated_locales():
        copy = tmp_path / f"{locale}.po"
        copy.write_bytes(catalog_path(locale).read_bytes())
        monkeypatch.setattr(catalogs, "catalog_path", lambda _locale, c=copy: c)
        before = {str(m.id): m.string for m in catalogs.load(locale) if m.id}
        assert update(locale, extract()) == 0
        after = {str(m.id): m.string for m in catalogs.load(locale) if m.id}
        assert sorted(before.keys() - after.keys()) == [], f"update would drop these from {locale}"
        assert after == before


def test_check_command_passes_and_says_so() -> None:
    done = subprocess.run([sys.executable, "-m", "bridge.text.i18n", "check"], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every one translated" in done.stdout


def test_unknown_message_falls_back_to_english() -> None:
    assert tr("id", "No such message {n}", n=2) == "No such message 2"
    assert tr("id", "Skip") == "Lewati"
    assert tr("en", "Answered: {labels}", labels="A") == "Answered: A"


# times and negotiation ----------------------------------------------------------------------


def test_times_in_the_locales_own_form() -> None:
    at = datetime(2026, 1, 1, 14, 30, tzinfo=UTC)
    assert time_of_day("id", at) == "14.30"
    assert time_of_day("en", at) == "2:30 PM"
    now = at - timedelta(minutes=12)
    assert expiry_line(at, "id", now) == "Kedaluwarsa pukul 14.30 UTC (dalam 12 menit)."
    assert expiry_line(at, "en", now) == "Expires at 2:30 PM UTC (in 12 min)."


@pytest.mark.parametrize(("header", "expected"), [
    ("id-ID,id;q=0.9,en-US;q=0.8,en;q=0.7", "id"), ("en-US,en;q=0.9,id;q=0.8", "en"),
    ("fr-FR,fr;q=0.9", "en"), ("fr;q=1, id;q=0.5", "id"), ("", "en"), ("id;q=0, en", "en"),
    ("ID", "id"), ("garbage;;q=x,,", "en"),
])
def test_accept_language(header: str, expected: str) -> None:
    assert negotiate(header) == expected
