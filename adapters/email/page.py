"""The pages a link in a prompt opens (pure HTML, no script): confirm, done, ended, not valid.

A GET only shows; the one button POSTs (mail scanners and link previews follow links). The
look is the web UI's: its colours, type and card, inlined so the page needs nothing else.
"""

from __future__ import annotations

from html import escape

from bridge import tr

MAX_REASON = 2000
"""Characters of a rejection's reason the confirm page takes (a reason, not an essay)."""

STYLE = """
:root{--bg:#f4f5f7;--panel:#fff;--ink:#1c2230;--ink-2:#4a5263;--muted:#7a8294;--line:#e3e6ec;
--accent:#3d5bd9;--ok:#23855a;--radius:14px;--shadow:0 1px 2px rgba(20,27,45,.05),
0 8px 24px rgba(20,27,45,.07);--font:ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,
"Noto Sans","DejaVu Sans",sans-serif}
*{box-sizing:border-box}body{margin:0;min-height:100vh;display:grid;place-items:center;
font:15px/1.5 var(--font);color:var(--ink);background:var(--bg);padding:16px}
.card{width:100%;max-width:520px;background:var(--panel);border:1px solid var(--line);
border-radius:var(--radius);box-shadow:var(--shadow);padding:24px 28px}
.brand{display:flex;align-items:center;gap:10px;font-weight:650;margin-bottom:14px}
.logo{width:26px;height:26px;border-radius:8px;background:var(--accent);color:#fff;
display:grid;place-items:center;font-weight:700}
.header{font-size:11.5px;font-weight:600;text-transform:uppercase;letter-spacing:.06em;
color:var(--muted)}h1{font-size:17px;font-weight:650;margin:2px 0 14px}
.choice{padding:12px 14px;border:1px solid var(--line);border-radius:10px;margin-bottom:18px}
.choice b{display:block}.choice span{color:var(--ink-2);font-size:13.5px}
.primary{border:0;background:var(--accent);color:#fff;border-radius:10px;padding:11px 22px;
font:inherit;font-weight:600;cursor:pointer;width:100%;min-height:48px}
.primary:hover{background:#3250c9}textarea{width:100%;font:inherit;padding:8px 10px;
border:1px solid var(--line);border-radius:10px}a{color:var(--accent)}p{margin:0 0 10px}
"""


def _page(locale: str, title: str, body: str) -> str:
    return (f"<!doctype html><html lang=\"{escape(locale)}\"><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            "<meta name=\"robots\" content=\"noindex\">"
            f"<title>askbridge · {escape(title)}</title><style>{STYLE}</style>"
            "<main class=\"card\"><div class=\"brand\"><span class=\"logo\">a</span>askbridge</div>"
            f"{body}</main></html>")


def confirm(locale: str, header: str, question: str, choice: str, description: str | None,
            skip: bool, reason: bool = False) -> str:
    """The question, the chosen option, and one button that POSTs it to this same address;
    `reason`: an approval's Reject, which needs the person's reason in a field of its own."""
    detail = f"<span>{escape(description)}</span>" if description else ""
    button = (tr(locale, "Skip this question") if skip
              else tr(locale, "Answer: {choice}", choice=choice))
    why = (f"<p><label for=\"reason\">{escape(tr(locale, 'Reason for rejecting'))}</label></p>"
           f"<p><textarea id=\"reason\" name=\"reason\" rows=\"3\" required "
           f"maxlength=\"{MAX_REASON}\"></textarea></p>") if reason else ""
    return _page(locale, header, (
        f"<div class=\"header\">{escape(header)}</div><h1>{escape(question)}</h1>"
        f"<div class=\"choice\"><b>{escape(choice)}</b>{detail}</div>"
        f"<form method=\"post\">{why}<button class=\"primary\" type=\"submit\">"
        f"{escape(button)}</button></form>"))


def notice(locale: str, title: str, text: str, link: tuple[str, str] | None = None) -> str:
    """A page that only tells: recorded, already ended, not valid, or where to answer instead."""
    more = f"<p><a href=\"{escape(link[0])}\">{escape(link[1])}</a></p>" if link else ""
    return _page(locale, title, f"<h1>{escape(title)}</h1><p>{escape(text)}</p>{more}")
