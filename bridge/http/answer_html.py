"""The answer page's HTML (pure, no script): a question's form, an approval's decisions, and
the notices (recorded, refused, ended, not valid). Inline CSS only, readable on a phone."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from bridge.model.prompt import Prompt
from bridge.model.validation import Problem
from bridge.text.approval_text import ALLOW, APPROVE, FINGERPRINT
from bridge.text.i18n import N_, tr

STYLE = """
:root{--bg:#f4f5f7;--panel:#fff;--ink:#1c2230;--ink-2:#4a5263;--muted:#7a8294;--line:#e3e6ec;
--accent:#3d5bd9;--bad:#b3261e;--radius:14px;--font:ui-sans-serif,system-ui,-apple-system,
"Segoe UI",Roboto,"Noto Sans","DejaVu Sans",sans-serif}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 var(--font);color:var(--ink);
background:var(--bg);padding:12px}
.card{width:100%;max-width:560px;margin:0 auto;background:var(--panel);
border:1px solid var(--line);border-radius:var(--radius);padding:20px}
.brand{font-weight:650;margin-bottom:12px}.header{font-size:12px;font-weight:600;
text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}
h1{font-size:18px;margin:2px 0 12px}fieldset{border:0;padding:0;margin:0 0 18px}
legend{font-weight:650;margin-bottom:8px}
.opt{display:flex;gap:10px;align-items:flex-start;padding:10px 12px;border:1px solid var(--line);
border-radius:10px;margin-bottom:8px;min-height:48px}.opt input{margin-top:4px}
.opt span{display:block;color:var(--ink-2);font-size:14px}
label.text{display:block;font-size:14px;color:var(--ink-2);margin-top:6px}
input[type=text],textarea{width:100%;font:inherit;padding:10px;border:1px solid var(--line);
border-radius:10px}textarea{min-height:10em;font-family:ui-monospace,monospace;font-size:14px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--bg);padding:10px;
border-radius:10px;font-size:14px}dl{margin:0 0 12px}dt{color:var(--muted);font-size:13px}
dd{margin:0 0 8px;overflow-wrap:anywhere}
.row{display:flex;flex-wrap:wrap;gap:8px;margin-top:8px}
button{border:0;border-radius:10px;padding:11px 20px;font:inherit;font-weight:600;
min-height:48px;flex:1 1 auto;cursor:pointer;background:var(--accent);color:#fff}
button.quiet{background:var(--bg);color:var(--ink)}button.bad{background:var(--bad)}
.said{border-left:4px solid var(--bad);padding:6px 10px;margin-bottom:12px}
.problem{color:var(--bad);font-size:14px;margin:4px 0}
"""


def page(locale: str, title: str, body: str) -> str:
    return (f"<!doctype html><html lang=\"{escape(locale)}\"><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            "<meta name=\"robots\" content=\"noindex\">"
            f"<title>askbridge · {escape(title)}</title><style>{STYLE}</style>"
            "<main class=\"card\"><div class=\"brand\">askbridge</div>"
            f"{body}</main></html>")


def notice(locale: str, title: str, text: str) -> str:
    """A page that only tells: recorded, already ended, not valid."""
    return page(locale, title, f"<h1>{escape(title)}</h1><p>{escape(text)}</p>")


def _said(said: str | None) -> str:
    return f"<p class=\"said\" role=\"alert\">{escape(said)}</p>" if said else ""


def question_form(prompt: Prompt, said: str | None = None) -> str:
    """Every question with its options (radios, or checkboxes for multi-select) and a free-text
    field; Submit and Skip POST to this same address."""
    loc = prompt.locale
    parts = [_said(said), "<form method=\"post\">"]
    for i, q in enumerate(prompt.questions):
        kind = "checkbox" if q.multi_select else "radio"
        parts.append(f"<fieldset><div class=\"header\">{escape(q.header)}</div>"
                     f"<legend>{escape(q.question)}</legend>")
        for j, (label, description) in enumerate(q.options):
            detail = f"<span>{escape(description)}</span>" if description else ""
            parts.append(f"<label class=\"opt\"><input type=\"{kind}\" name=\"q{i}\" "
                         f"value=\"{j}\"><div>{escape(label)}{detail}</div></label>")
        parts.append(f"<label class=\"text\" for=\"t{i}\">{escape(tr(loc, 'Or in your own words'))}"
                     f"</label><input type=\"text\" id=\"t{i}\" name=\"t{i}\" maxlength=\"4000\">"
                     "</fieldset>")
    parts.append(f"<div class=\"row\"><button type=\"submit\" name=\"do\" value=\"submit\">"
                 f"{escape(tr(loc, 'Submit'))}</button><button class=\"quiet\" type=\"submit\" "
                 f"name=\"do\" value=\"skip\">{escape(tr(loc, 'Skip'))}</button></div></form>")
    title = prompt.questions[0].header if prompt.questions else "askbridge"
    return page(loc, title, "".join(parts))


def approval_form(locale: str, view: dict[str, Any], said: str | None = None,
                  edited: str | None = None, problems: list[Problem] | None = None) -> str:
    """Action, tool, risk, arguments and fingerprint; Approve or Allow for 1 h (these arguments,
    as the buttons on every surface), Reject with a reason, and Edit (the arguments as JSON, with
    every problem shown above the kept text). Each form sends the hash of what it showed."""
    request = view["request"]
    arguments = request.get("arguments") or {}
    shown = json.dumps(arguments, indent=2, ensure_ascii=False, sort_keys=True)
    digest = str(view["payloadHash"])
    fingerprint = tr(locale, "Payload: #{fingerprint}", fingerprint=digest[:FINGERPRINT])
    hidden = f"<input type=\"hidden\" name=\"hash\" value=\"{escape(digest)}\">"
    facts = "".join(f"<dt>{escape(tr(locale, name))}</dt><dd>{escape(str(value))}</dd>"
                    for name, value in ((N_("Tool"), request.get("tool") or "-"),
                                        (N_("Risk"), request.get("risk", "medium"))))
    wrong = "".join(f"<p class=\"problem\" role=\"alert\">{escape(p.loc)}: {escape(p.msg)}</p>"
                    for p in problems or [])
    return page(locale, str(request.get("action", "")), "".join([
        _said(said), f"<div class=\"header\">{escape(tr(locale, 'Approval'))}</div>",
        f"<h1>{escape(str(request.get('action', '')))}</h1><dl>{facts}</dl>",
        f"<pre>{escape(shown)}</pre><p>{escape(fingerprint)}</p>",
        f"<form method=\"post\">{hidden}<div class=\"row\"><button type=\"submit\" "
        f"name=\"decision\" value=\"approve\">{escape(tr(locale, APPROVE))}</button>"
        "<button class=\"quiet\" type=\"submit\" name=\"decision\" value=\"allow\">"
        f"{escape(tr(locale, ALLOW))}</button></div></form>",
        f"<form method=\"post\">{hidden}<label class=\"text\" for=\"reason\">"
        f"{escape(tr(locale, 'Reason for rejecting'))}</label><input type=\"text\" id=\"reason\" "
        "name=\"reason\" maxlength=\"1000\"><div class=\"row\"><button class=\"bad\" "
        f"type=\"submit\" name=\"decision\" value=\"reject\">{escape(tr(locale, 'Reject'))}"
        "</button></div></form>",
        f"<form method=\"post\">{hidden}<label class=\"text\" for=\"arguments\">"
        f"{escape(tr(locale, 'Edited arguments (JSON)'))}</label>{wrong}"
        f"<textarea id=\"arguments\" name=\"arguments\">{escape(edited or shown)}</textarea>"
        "<div class=\"row\"><button type=\"submit\" name=\"decision\" value=\"edit\">"
        f"{escape(tr(locale, 'Approve edited'))}</button></div></form>"]))
