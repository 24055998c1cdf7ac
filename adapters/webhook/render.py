"""Outbound webhook payloads (pure): `{conversation, questionId, kind, text}`."""

from __future__ import annotations

from typing import Any

from bridge import Finalization, Prompt, Reminder, tr


def prompt_payload(conversation: str, prompt: Prompt) -> dict[str, Any]:
    return {"conversation": conversation, "questionId": prompt.question_id, "kind": "prompt",
            "text": prompt.text}


def reminder_payload(conversation: str, reminder: Reminder) -> dict[str, Any]:
    return {"conversation": conversation, "questionId": reminder.prompt.question_id,
            "kind": "reminder", "text": reminder.text}


def status_payload(conversation: str, final: Finalization) -> dict[str, Any]:
    question = final.prompt.questions[0]
    title = (question.header if len(final.prompt.questions) == 1
             else tr(final.prompt.locale, "Your questions"))
    return {"conversation": conversation, "questionId": final.prompt.question_id,
            "kind": "status", "text": f"{title}: {final.status_line}"}


def console_block(conversation: str, payload: dict[str, Any]) -> str:
    """How the local channel shows a payload on the server's console."""
    bar = "─" * 60
    return f"\n{bar}\n[{payload['kind']} → {conversation} · {payload['questionId']}]\n" \
           f"{payload['text']}\n{bar}\n"
