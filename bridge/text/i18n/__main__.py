"""`python -m bridge.text.i18n check|update`: keep every catalog in step with the source's messages."""

from __future__ import annotations

import sys

from bridge.text.i18n.catalogs import extract, gaps, translated_locales, update

USAGE = """usage: python -m bridge.text.i18n check    list messages a catalog lacks (exit 1 if any)
       python -m bridge.text.i18n update   add them untranslated to every catalog, drop unused ones"""


def main(argv: list[str]) -> int:
    if argv not in (["check"], ["update"]):
        print(USAGE, file=sys.stderr)
        return 2
    found = extract()
    for problem in found.problems:
        print(problem)
    bad = bool(found.problems)
    for locale in translated_locales():
        if argv == ["update"]:
            todo = update(locale, found)
            print(f"{locale}: {todo} message(s) to translate in bridge/text/locales/{locale}/"
                  "LC_MESSAGES/askbridge.po (empty msgstr)")
            continue
        g = gaps(locale, set(found.messages))
        for label, ids in (("missing", g.missing), ("untranslated", g.empty), ("fuzzy", g.fuzzy)):
            for message in ids:
                print(f"{locale}: {label}: {message!r}  ({found.messages[message][0]})")
        if g.obsolete:
            print(f"{locale}: {len(g.obsolete)} unused message(s); `update` drops them")
        bad = bad or not g.ok
    if not bad and argv == ["check"]:
        print(f"{len(found.messages)} messages, every one translated in "
              f"{', '.join(translated_locales())}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
