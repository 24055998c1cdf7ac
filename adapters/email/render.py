"""Outgoing mail (pure): the prompt as text + HTML with its links, reminders, notices, status.

Every message about one question is in one thread: each carries `References` to the question's
thread root, and reminders, notices and status mails reply to the prompt's `Message-ID`. Those
about an approval name in their `Message-ID` the payload they show (`ids.new_message_id`).
Everything askbridge sends is marked `Auto-Submitted` so vacation responders stay quiet.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime
from html import escape

from adapters.email.ids import new_message_id
from bridge import Finalization, Prompt, QuestionId, Reminder, tr

STYLE_BUTTON = ("display:inline-block;margin:0 8px 8px 0;padding:9px 18px;border-radius:10px;"
                "background:#3d5bd9;color:#ffffff;text-decoration:none;font-weight:600")
STYLE_GHOST = ("display:inline-block;margin:0 8px 8px 0;padding:9px 18px;border-radius:10px;"
               "border:1px solid #d3d8e1;color:#1c2230;text-decoration:none")
STYLE_CARD = ("max-width:640px;margin:0 auto;padding:20px 24px;background:#ffffff;"
              "border:1px solid #e3e6ec;border-radius:14px;color:#1c2230;"
              "font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif")
KIND_HEADER = "X-Askbridge-Kind"
"""`prompt`, `reminder`, `status` or `notice`: for mail filters (and tests) to tell them apart."""


@dataclass(frozen=True, slots=True)
class Envelope:
    """Who a message is from and to, where replies go, and the thread it belongs in."""

    sender: Address
    to: str
    reply_to: str
    thread_root: str
    domain: str


@dataclass(frozen=True, slots=True)
class Links:
    """The prompt's links: one per option (one single-choice question), Skip, and the web card."""

    options: tuple[tuple[str, str], ...]
    """(label, confirm URL) per option; empty when the prompt needs the web card instead."""
    skip: str
    card: str


def thread_root(question_id: QuestionId, domain: str) -> str:
    return f"<{question_id}@{domain}>"


def subject(prompt: Prompt) -> str:
    title = " · ".join(q.header for q in prompt.questions)
    return tr(prompt.locale, "Question: {title}", title=title)


def shown(prompt: Prompt) -> str | None:
    """The payload hash of the arguments an approval's prompt shows; None for a question."""
    return prompt.approval.payload_hash if prompt.approval is not None else None


def _base(env: Envelope, subject_line: str, in_reply_to: str | None, kind: str,
          payload: str | None = None) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = env.sender
    msg["To"] = env.to
    msg["Reply-To"] = env.reply_to
    msg["Subject"] = subject_line
    msg["Date"] = format_datetime(datetime.now(UTC))
    msg["Message-ID"] = new_message_id(env.domain, payload)
    msg["References"] = f"{env.thread_root} {in_reply_to}" if in_reply_to else env.thread_root
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    msg["Auto-Submitted"] = "auto-generated"
    msg["X-Auto-Response-Suppress"] = "All"
    msg[KIND_HEADER] = kind
    return msg


def prompt(prompt: Prompt, env: Envelope, links: Links) -> EmailMessage:
    """multipart/alternative: the numbered prompt as text, and as HTML with a link per choice."""
    msg = _base(env, subject(prompt), None, "prompt", shown(prompt))
    msg.set_content(prompt.text)
    msg.add_alternative(_html(prompt, links), subtype="html")
    return msg


def _html(prompt: Prompt, links: Links) -> str:
    loc = prompt.locale
    if links.options:
        lead = tr(loc, "Choose an answer (you confirm it on the next page):")
        buttons = [_link(url, label, STYLE_BUTTON) for label, url in links.options]
    else:
        lead = tr(loc, "Answer on the question's page, or reply to this e-mail:")
        buttons = [_link(links.card, tr(loc, "Open the question"), STYLE_BUTTON)]
    buttons.append(_link(links.skip, tr(loc, "Skip"), STYLE_GHOST))
    text = escape(prompt.text)
    return (f"<!doctype html><html lang=\"{loc}\"><meta charset=\"utf-8\">"
            f"<body style=\"margin:0;padding:16px;background:#f4f5f7\">"
            f"<div style=\"{STYLE_CARD}\"><p style=\"margin:0 0 12px\">{escape(lead)}</p>"
            f"<p style=\"margin:0 0 8px\">{''.join(buttons)}</p>"
            f"<pre style=\"white-space:pre-wrap;font:inherit;margin:12px 0 0\">{text}</pre>"
            "</div></body></html>")


def _link(url: str, label: str, style: str) -> str:
    return f"<a href=\"{escape(url)}\" style=\"{style}\">{escape(label)}</a>"


def reminder(reminder: Reminder, env: Envelope, prompt_id: str | None) -> EmailMessage:
    msg = _base(env, "Re: " + subject(reminder.prompt), prompt_id, "reminder",
                shown(reminder.prompt))
    msg.set_content(reminder.text)
    return msg


def final(final: Finalization, env: Envelope, prompt_id: str | None) -> EmailMessage:
    """The status mail `notify_final` asks for: `<header>: <status line>` (never free text)."""
    questions = final.prompt.questions
    title = (questions[0].header if len(questions) == 1
             else tr(final.prompt.locale, "Your questions"))
    msg = _base(env, "Re: " + subject(final.prompt), prompt_id, "status", shown(final.prompt))
    msg.set_content(f"{title}: {final.status_line}")
    return msg


def notice(text: str, env: Envelope, subject_line: str, in_reply_to: str | None,
           payload: str | None = None) -> EmailMessage:
    """A short answer to a person's reply ("still needed …", "already ended"); it never quotes
    the reply, so own words are never echoed. `payload`: the one the reply was deciding on, so a
    reply to this notice decides on the same arguments."""
    reply_subject = subject_line if subject_line.lower().startswith("re:") else f"Re: {subject_line}"
    msg = _base(env, reply_subject, in_reply_to, "notice", payload)
    msg.set_content(text)
    return msg
