"""An HTML-only reply as plain text, quoted parts left out (stdlib `html.parser`, no markup kept)."""

from __future__ import annotations

from html.parser import HTMLParser

SKIPPED = frozenset({"blockquote", "style", "script", "head", "title"})
BREAKS = frozenset({"br", "p", "div", "tr", "li", "h1", "h2", "h3", "h4", "hr", "table"})
QUOTE_MARKS = ("gmail_quote", "divRplyFwdMsg", "appendonsend", "moz-cite-prefix",
               "yahoo_quoted", "x_divRplyFwdMsg")
"""Class or id of the element where a client starts the quoted message; nothing after it is
the person's (Gmail, Outlook, Thunderbird, Yahoo)."""
VOID = frozenset({"br", "hr", "img", "meta", "link", "input", "wbr", "col", "area", "base"})


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping: list[str] = []
        self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.done:
            return
        marks = " ".join(v or "" for k, v in attrs if k in ("class", "id"))
        if any(mark in marks for mark in QUOTE_MARKS):
            self.done = True
            return
        if tag in BREAKS:
            self.parts.append("\n")
        if tag in SKIPPED and tag not in VOID:
            self.skipping.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()
        if tag in BREAKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.done and not self.skipping:
            self.parts.append(data)


def html_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).splitlines()]
    return "\n".join(lines).strip()
