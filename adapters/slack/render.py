"""Prompts and finalizations as Slack Block Kit payloads (pure)."""

from __future__ import annotations

import json
from typing import Any

from adapters.slack import approval, native
from adapters.slack.ids import action_id
from adapters.slack.mrkdwn import escape
from bridge import (
    ButtonAction,
    ButtonsLayout,
    Finalization,
    NativePrompt,
    Prompt,
    QuestionId,
    SurfaceId,
    TextLayout,
    caption,
    split_escaped,
    tr,
)

OTHER_CALLBACK = "ab_other"
"""The modal's callback_id; its private_metadata carries the question id and surface."""
OTHER_BLOCK = "ab_other_block"
OTHER_INPUT = "ab_other_input"
MAX_SECTION = 3000
"""Slack's limit for a section block's text; longer prompts take several."""
Args = dict[str, Any]
"""chat.postMessage / chat.update arguments, without channel and ts."""



def _section(text: str) -> Args:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _header_sections(prompt: Prompt) -> list[Args]:
    title = f"*{escape(prompt.title)}*\n"
    parts = split_escaped(prompt.body, MAX_SECTION - len(title), escape) or [""]
    return [_section(title + parts[0]), *(_section(p) for p in parts[1:])]


def _button(prompt: Prompt, label: str, action: ButtonAction, primary: bool) -> Args:
    element: Args = {
        "type": "button",
        "text": {"type": "plain_text", "text": caption(label, 75), "emoji": True},
        "action_id": action_id(prompt.question_id, action),
        "value": action_id(prompt.question_id, action),
    }
    if primary:
        element["style"] = "primary"
    return element


def _text_parts(prompt: Prompt) -> list[str]:
    return split_escaped(prompt.text, MAX_SECTION, escape)


def prompt(prompt: Prompt) -> list[Args]:
    """The messages to post, in order; the last one holds the controls (the one a thread reply,
    a tap or finalization refers to). Numbered text goes as plain messages."""
    match prompt.layout:
        case NativePrompt():
            return [native.message(prompt)]
        case TextLayout():
            return [{"text": part, "mrkdwn": True} for part in _text_parts(prompt)]
        case ButtonsLayout(buttons=buttons):
            elements = ([_button(prompt, b.label, b.action, b.primary) for b in buttons]
                        if prompt.approval is None else approval.elements(prompt))
            actions = {"type": "actions", "block_id": f"ab:{prompt.question_id}",
                       "elements": elements}
            return [{"text": f"{prompt.title}: {prompt.body}",
                     "blocks": [*_header_sections(prompt), actions]}]


def final(final: Finalization) -> Args:
    """chat.update arguments for the prompt's last message: its text kept, controls gone, the
    status line added."""
    prompt = final.prompt
    status = {"type": "context",
              "elements": [{"type": "mrkdwn", "text": f"*{escape(final.status_line)}*"}]}
    match prompt.layout:
        case NativePrompt():  # every question, no elements, no controls
            return {"text": f"{escape(prompt.title)}: {escape(final.status_line)}",
                    "blocks": [*native.blocks(prompt, choices=False), status]}
        case TextLayout():
            last = (_text_parts(prompt) or [""])[-1]
            return {"text": f"{last}\n\n{escape(final.status_line)}",
                    "blocks": [_section(last), status]}
        case ButtonsLayout():
            return {"text": f"{escape(prompt.title)}: {escape(final.status_line)}",
                    "blocks": [*_header_sections(prompt), status]}


def other_modal(question_id: QuestionId, surface: SurfaceId, title: str,
                question: str, locale: str) -> dict[str, Any]:
    """The `Other…` modal: one multiline text input; metadata says what it answers."""
    return {
        "type": "modal",
        "callback_id": OTHER_CALLBACK,
        "private_metadata": json.dumps({"q": question_id, "s": surface}),
        "title": {"type": "plain_text", "text": caption(title, 24)},
        "submit": {"type": "plain_text", "text": tr(locale, "Send")},
        "close": {"type": "plain_text", "text": tr(locale, "Cancel")},
        "blocks": [{
            "type": "input",
            "block_id": OTHER_BLOCK,
            "label": {"type": "plain_text", "text": caption(question, 2000)},
            "element": {"type": "plain_text_input", "action_id": OTHER_INPUT, "multiline": True,
                        "max_length": 3000},
        }],
    }
