"""Native prompts on Slack: radio buttons or checkboxes per question, Submit · Other… · Skip (pure).

Action ids are `ab:<question_id>:<code>`: `v<n>` is question n's element, `d` Submit (Done),
`w` opens the own-words modal, `s` Skip. Option values are indices: no label rides in an id.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from adapters.slack.ids import ACTION_PREFIX, action_id
from adapters.slack.mrkdwn import escape
from bridge import NativePrompt, NativeQuestion, Prompt, QuestionId, SurfaceId, caption, split_text, tr

OWN_CALLBACK = "ab_own"
"""The own-words modal's callback_id; private_metadata carries question, surface, message."""
OWN_BLOCK = "ab_own_"
"""Its input blocks are `ab_own_<n>`, one per question, each with action id `ab_own_input`."""
OWN_INPUT = "ab_own_input"
SECTION_MAX = 3000
_CODE = re.compile(rf"^{ACTION_PREFIX}:(q_[a-z0-9]{{1,64}}):(?:v(\d)|(d)|(w))$")


def _native(prompt: Prompt) -> NativePrompt:
    if not isinstance(prompt.layout, NativePrompt):
        raise ValueError(f"a native layout needs a native prompt, not {prompt.layout.kind}")
    return prompt.layout



def _element(prompt: Prompt, n: int, question: NativeQuestion) -> dict[str, Any]:
    options = [{"text": {"type": "plain_text", "text": caption(b.label, 75)},
                "value": str(b.action)} for b in question.options]
    element: dict[str, Any] = {
        "type": "checkboxes" if question.multi_select else "radio_buttons",
        "action_id": f"{ACTION_PREFIX}:{prompt.question_id}:v{n}", "options": options}
    chosen = [o for o, b in zip(options, question.options, strict=True)
              if b.action in question.chosen]
    if question.multi_select and chosen:
        element["initial_options"] = chosen
    elif chosen:
        element["initial_option"] = chosen[0]
    return element


def _question_sections(prompt: Prompt, n: int, word: str, choices: bool) -> list[dict[str, Any]]:
    """Header, question and every option's note in full (option captions have no room), in as
    many sections as Slack's 3,000 characters each need."""
    q = _native(prompt).questions[n]
    text = f"*{escape(q.header)}*: {escape(q.question)}"
    text += "".join(f"\n• {escape(label)} — {escape(note)}"
                    for label, note in prompt.questions[n].options if note)
    if choices and q.free_text:
        text += f"\n→ _{escape(word)}_"
    return [{"type": "section", "text": {"type": "mrkdwn", "text": part}}
            for part in split_text(text, SECTION_MAX)]


def blocks(prompt: Prompt, choices: bool = True) -> list[dict[str, Any]]:
    """Sections and an input element per question, then the control row."""
    native = _native(prompt)
    c = native.controls
    out: list[dict[str, Any]] = []
    for n, q in enumerate(native.questions):
        out += _question_sections(prompt, n, c.chosen, choices)
        if choices:
            out.append({"type": "actions", "block_id": f"ab:{prompt.question_id}:q{n}",
                        "elements": [_element(prompt, n, q)]})
    if not choices:
        return out
    submit = c.submit if len(native.questions) > 1 else c.done
    controls = [(submit, "d", True), (c.other, "w", False), (c.skip, "s", False)]
    out.append({"type": "actions", "block_id": f"ab:{prompt.question_id}", "elements": [
        _control(prompt.question_id, label, code, primary) for label, code, primary in controls]})
    return out


def _control(question_id: QuestionId, label: str, code: str, primary: bool) -> dict[str, Any]:
    value = (action_id(question_id, "skip") if code == "s"
             else f"{ACTION_PREFIX}:{question_id}:{code}")
    button: dict[str, Any] = {"type": "button", "text": {"type": "plain_text", "text": label},
                              "action_id": value, "value": value}
    if primary:
        button["style"] = "primary"
    return button


def message(prompt: Prompt) -> dict[str, Any]:
    """chat.postMessage / chat.update arguments (without channel) for a native prompt."""
    fallback = "; ".join(f"{q.header}: {q.question}" for q in _native(prompt).questions)
    return {"text": fallback,
            "blocks": [*blocks(prompt), {"type": "context", "elements": [
                {"type": "mrkdwn", "text": escape(prompt.expiry)}]}]}


@dataclass(frozen=True, slots=True)
class NativeAction:
    """What one of our native elements did: a selection, Submit, or Other…."""

    question_id: QuestionId
    kind: Literal["select", "done", "own_words"]
    step: int = 0
    options: tuple[int, ...] = ()


class _Choice(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    value: str


class _Action(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    action_id: str
    selected_options: list[_Choice] | None = None
    selected_option: _Choice | None = None


def parse_action(raw: Any) -> NativeAction | None:
    """A block_actions action on a native prompt; None when it is not one (or malformed)."""
    try:
        action = _Action.model_validate(raw)
    except ValidationError:
        return None
    match = _CODE.match(action.action_id)
    if match is None:
        return None
    question_id = QuestionId(match.group(1))
    if match.group(3):
        return NativeAction(question_id, "done")
    if match.group(4):
        return NativeAction(question_id, "own_words")
    chosen = action.selected_options or ([action.selected_option]
                                         if action.selected_option else [])
    if not all(c.value.isdigit() and len(c.value) <= 2 for c in chosen):
        return None
    return NativeAction(question_id, "select", int(match.group(2)),
                        tuple(int(c.value) for c in chosen))


def own_words_modal(prompt: Prompt, surface: SurfaceId, message_ts: str | None) -> dict[str, Any]:
    """`Other…`: one optional input per question (required when there is only one)."""
    inputs = [{
        "type": "input", "block_id": f"{OWN_BLOCK}{n}", "optional": len(prompt.questions) > 1,
        "label": {"type": "plain_text", "text": caption(f"{q.header}: {q.question}", 2000)},
        "element": {"type": "plain_text_input", "action_id": OWN_INPUT, "multiline": True,
                    "max_length": 3000},
    } for n, q in enumerate(prompt.questions)]
    return {
        "type": "modal", "callback_id": OWN_CALLBACK,
        "private_metadata": json.dumps({"q": prompt.question_id, "s": surface,
                                        "m": message_ts}),
        "title": {"type": "plain_text", "text": caption(tr(prompt.locale, "Your answer"), 24)},
        "submit": {"type": "plain_text", "text": tr(prompt.locale, "Send")},
        "close": {"type": "plain_text", "text": tr(prompt.locale, "Cancel")},
        "blocks": inputs,
    }


def own_words(body: dict[str, Any]) -> tuple[QuestionId, SurfaceId, str | None,
                                             str, dict[int, str]] | None:
    """The own-words modal's submission: question, surface, message ts, user, text per number."""
    try:
        view, user = body["view"], str(body["user"]["id"])
        meta = json.loads(view["private_metadata"])
        question_id, surface = QuestionId(str(meta["q"])), SurfaceId(str(meta["s"]))
        values: dict[str, Any] = view["state"]["values"]
    except (KeyError, TypeError, ValueError):
        return None
    texts: dict[int, str] = {}
    for block_id, inputs in values.items():
        number = str(block_id).removeprefix(OWN_BLOCK)
        value = (inputs or {}).get(OWN_INPUT, {}).get("value") if isinstance(inputs, dict) \
            else None
        if number.isdigit() and isinstance(value, str) and value.strip():
            texts[int(number)] = value.strip()
    ts = meta.get("m")
    return question_id, surface, str(ts) if ts else None, user, texts
