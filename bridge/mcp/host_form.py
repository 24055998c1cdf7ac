"""The question as an MCP host's own form (elicitation, form mode), and the form's answer read
back as the answers any surface gives.

Per question: a single-select (a string with a titled `oneOf`) or a multi-select (an array whose
items are a titled `anyOf`) of the option labels, titled by the header, and an optional free-text
field `<id>_other`. Nothing is required: an answer may be free text only, and what is missing is
refused the way every surface refuses it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bridge.model.contract import AskRequest, Question
from bridge.text.i18n import tr

ELICIT_KEY = "answer"
"""The name of the one form in a 2026-07-28 `input_required` result."""


@dataclass(frozen=True)
class HostReply:
    """What the host's form came back with: an answer (`answers`), Skip (`skipped`), or the
    form dismissed (neither: the question stays open on the remote surfaces)."""

    answers: dict[str, list[str]] | None = None
    skipped: bool = False


def _choice(q: Question) -> dict[str, Any]:
    titled = [{"const": o.label, "title": o.label} for o in q.options]
    if q.multi_select:
        return {"type": "array", "title": q.header, "description": q.question,
                "items": {"anyOf": titled}}
    return {"type": "string", "title": q.header, "description": q.question, "oneOf": titled}


def form_schema(request: AskRequest, locale: str) -> dict[str, Any]:
    """The `requestedSchema` of the form for `request`."""
    properties: dict[str, Any] = {}
    for q in request.questions:
        properties[q.id] = _choice(q)
        properties[f"{q.id}_other"] = {
            "type": "string", "title": tr(locale, "{header}: your own answer", header=q.header),
            "description": tr(locale, "Optional: answer in your own words instead."),
        }
    return {"type": "object", "properties": properties}


def form_message(request: AskRequest, problem: str | None = None) -> str:
    """The form's message: the questions themselves (and why an earlier answer was refused)."""
    lines = [f"{q.header}: {q.question}" for q in request.questions]
    return "\n".join([problem, *lines] if problem else lines)


def read_reply(request: AskRequest, action: str, content: dict[str, Any] | None) -> HostReply:
    """The host's `ElicitResult` as an answer, a Skip (decline) or a dismissal (cancel)."""
    if action == "decline":
        return HostReply(skipped=True)
    if action != "accept":
        return HostReply()
    given = content or {}
    answers: dict[str, list[str]] = {}
    for q in request.questions:
        chosen = given.get(q.id)
        values = [chosen] if isinstance(chosen, str) else list(chosen or [])
        other = given.get(f"{q.id}_other")
        if isinstance(other, str) and other.strip():
            values.append(other)
        answers[q.id] = [str(v) for v in values if isinstance(v, str | int | float)]
    return HostReply(answers=answers)
