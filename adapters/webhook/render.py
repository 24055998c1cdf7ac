"""Outbound webhook payloads (pure): `{conversation, questionId, kind, text}`, one per part."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from bridge import Finalization, Prompt, QuestionId, Reminder, split_text, tr

Payload = dict[str, Any]


def _payloads(conversation: str, question_id: QuestionId, kind: str, text: str,
              max_len: int) -> list[Payload]:
    """A text longer than the channel's `max_len` goes out as several posts, in order."""
    return [{"conversation": conversation, "questionId": question_id, "kind": kind, "text": part}
            for part in split_text(text, max_len)]


def prompt(conversation: str, prompt: Prompt, max_len: int) -> list[Payload]:
    """`kind` is `prompt` for a question and `approval` for an approval (its id in `questionId`)."""
    return _payloads(conversation, prompt.question_id, prompt.kind, prompt.text, max_len)


def reminder(conversation: str, reminder: Reminder, max_len: int) -> list[Payload]:
    return _payloads(conversation, reminder.prompt.question_id, "reminder", reminder.text,
                     max_len)


def final(conversation: str, final: Finalization, max_len: int) -> list[Payload]:
    question = final.prompt.questions[0]
    title = (question.header if len(final.prompt.questions) == 1
             else tr(final.prompt.locale, "Your questions"))
    return _payloads(conversation, final.prompt.question_id, "status",
                     f"{title}: {final.status_line}", max_len)


def web_link(web_url: str, prompt: Prompt) -> str:
    """The question in the web UI: its session's panel (the page reads `#agent/session`)."""
    return f"{web_url}/#{quote(prompt.agent, safe='')}/{quote(prompt.session, safe='')}"


def console_block(conversation: str, payload: Payload, link: str | None = None) -> str:
    """How the local channel shows a payload on the server's console (with the web UI's link
    to the question, when there is one, so it can be answered there with a click)."""
    bar = "─" * 60
    web = f"{tr('en', 'Open in the web UI:')} {link}\n" if link else ""
    return f"\n{bar}\n[{payload['kind']} → {conversation} · {payload['questionId']}]\n" \
           f"{payload['text']}\n{web}{bar}\n"
