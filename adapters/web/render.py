"""What the web surface sends to pages and devices (pure): live events, UI views of records, SSE
framing, and the Web Push payloads of a prompt (`prompt`) and of its end (`final`)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from adapters.web.ids import WEB
from bridge import Prompt, surface_platform, surface_target

CHANGE_EVENTS = {"created": "question", "edited": "question", "resolved": "resolved"}
"""Broker changes the pages hear of; each makes a page refetch its state (an approval's edit
shows its new arguments)."""


def change_event(kind: str, question_id: str) -> dict[str, Any]:
    return {"type": kind, "questionId": question_id}


def surface_label(surface: str) -> str:
    """A short human name for a surface: `sms` for `webhook:sms:+1`, `telegram` for `telegram:4`."""
    platform = surface_platform(surface)
    if platform == "webhook":
        return surface_target(surface).partition(":")[0] or "webhook"
    return platform


def ui_view(view: dict[str, Any]) -> dict[str, Any]:
    """A record as the page needs it: whether it can be answered here, and who answered it."""
    by: dict[str, str] = view.get("answeredBy") or {}
    elsewhere = bool(by) and by["surface"] != WEB
    return {
        **view,
        "answerable": view["status"] == "pending" and WEB in view["surfaces"],
        "elsewhere": elsewhere,
        "answeredVia": surface_label(by["surface"]) if elsewhere else None,
    }


STRINGS_SLOT = "{{strings}}"
"""Where index.html takes the page's strings inline, so its first paint is in the right language."""


def index_page(template: str, locale: str, strings: dict[str, Any]) -> bytes:
    """The page in `locale`: its `lang`, and its strings as JSON inside the page. JSON can hold
    no `<` here: a `</script>` in a translation would end the element."""
    data = json.dumps(strings, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    page = template.replace('<html lang="en">', f'<html lang="{locale}">', 1)
    return page.replace(STRINGS_SLOT, data, 1).encode()


def sse(event: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(event, separators=(',', ':'))}\n\n".encode()


SSE_HELLO = b"retry: 1500\n\n"
SSE_PING = b": ping\n\n"


PUSH_MAX_BYTES = 3000
"""A Web Push message carries at most ~4 KB once encrypted; long prompts are shortened to fit."""


def panel_url(public_url: str, agent: str, session: str) -> str:
    """The page with this session's panel open (the page reads `#agent/session`)."""
    return f"{public_url}/#{quote(agent, safe='')}/{quote(session, safe='')}"


def prompt(prompt: Prompt, url: str, lead: str | None = None) -> dict[str, Any]:
    """`{questionId, title, body, url, actions}`: the header(s), the question text(s), the panel,
    and for one single-select question its first two options as notification actions.
    `lead` (a reminder's line) goes before the question text."""
    if prompt.approval is not None:
        return _fit(_approval(prompt, url, lead))
    questions = prompt.questions
    one = questions[0] if len(questions) == 1 and not questions[0].multi_select else None
    actions = [] if one is None else [
        {"action": f"answer:{n}", "title": label} for n, (label, _) in enumerate(one.options[:2])]
    body = "\n".join(q.question for q in questions)
    payload = {"questionId": prompt.question_id, "title": " · ".join(q.header for q in questions),
               "body": f"{lead}\n{body}" if lead else body, "url": url, "actions": actions}
    return _fit(payload)


def _approval(prompt: Prompt, url: str, lead: str | None) -> dict[str, Any]:
    """An approval: Approve and Reject as the notification's actions, bound to the payload
    (`hash`) the notification was about; the action (and tool) as its text."""
    approval = prompt.approval
    assert approval is not None
    labels = [label for label, _ in prompt.questions[0].options]
    body = approval.action + (f"\n{approval.tool}" if approval.tool else "")
    return {"questionId": prompt.question_id, "title": prompt.title,
            "body": f"{lead}\n{body}" if lead else body, "url": url,
            "actions": [{"action": "approve", "title": labels[0]},
                        {"action": "reject", "title": labels[1]}],
            "hash": approval.payload_hash}


def final(question_id: str) -> dict[str, Any]:
    """Tells every device to take the question's notification down (the page shows how the
    question ended from its own state)."""
    return {"questionId": question_id, "closed": True}


def push_bytes(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def _fit(payload: dict[str, Any]) -> dict[str, Any]:
    """Shorten the body (never the title, url or actions) until the message fits one push."""
    while (over := len(push_bytes(payload)) - PUSH_MAX_BYTES) > 0 and payload["body"]:
        body = payload["body"].encode()
        cut = body[: max(0, len(body) - over - 8)].decode(errors="ignore")
        payload = {**payload, "body": cut.rstrip() + "…"}
        if not cut:
            payload["body"] = ""
    return payload
