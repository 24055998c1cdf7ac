"""Neutral text the core writes: numbered prompts, status lines, timeline summaries (DESIGN §4)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from bridge.contract import AskResult, Question
from bridge.i18n import tr
from bridge.native import NativeControls, NativePrompt, NativeQuestion
from bridge.store.records import QuestionRecord, ms_to_dt
from bridge.types import (
    Button,
    Capabilities,
    FinalKind,
    Prompt,
    PromptQuestion,
)

OTHER_BUTTON = "Other…"
SKIP_BUTTON = "Skip"


def _expiry_line(expires_at: datetime, now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    minutes = max(0, round((expires_at - now).total_seconds() / 60))
    span = f"in {minutes} min" if minutes >= 1 else "in under a minute"
    return f"Expires at {expires_at.strftime('%H:%M')} UTC ({span})."


def _option_lines(question: Question, indent: str) -> list[str]:
    lines = []
    for i, option in enumerate(question.options, start=1):
        detail = f" — {option.description}" if option.description else ""
        lines.append(f"{indent}{i}) {option.label}{detail}")
    lines.append(f"{indent}Other: reply with your own answer.")
    return lines


def _single_text(q: Question) -> list[str]:
    kind = " (choose one or more)" if q.multi_select else ""
    lines = [f"{q.header}: {q.question}{kind}", *_option_lines(q, "")]
    how = "Reply with a number, the option text, or your own words"
    if q.multi_select:
        how += "; for several choices, list them like 1,3"
    lines += ["", how + '. Reply "skip" to skip.']
    return lines


def _multi_text(questions: list[Question]) -> list[str]:
    lines = [f"{len(questions)} questions:"]
    for n, q in enumerate(questions, start=1):
        kind = " (choose one or more)" if q.multi_select else ""
        lines += ["", f"{n}. {q.header}: {q.question}{kind}", *_option_lines(q, "   ")]
    example = "\n".join(f"{n}: {'1,3' if q.multi_select else '2'}" for n, q in
                        enumerate(questions, start=1))
    lines += [
        "",
        "Reply with one line per question, each starting with its number, for example:",
        example,
        "After the colon: a number, the option text, or your own words (1,3 for several "
        'choices). Reply "skip" to skip all.',
    ]
    return lines


def prompt_text(questions: list[Question], expires_at: datetime) -> str:
    """The numbered plain-text prompt every text surface sends."""
    lines = _single_text(questions[0]) if len(questions) == 1 else _multi_text(questions)
    return "\n".join([*lines, _expiry_line(expires_at)])


def wants_buttons(questions: list[Question]) -> bool:
    """Native buttons only for one single-select question (the `native = "single"` rule)."""
    return len(questions) == 1 and not questions[0].multi_select


def wants_native(questions: list[Question], caps: Capabilities) -> bool:
    """Taps for a multiSelect or several-question prompt, when the surface can show them."""
    if not caps.buttons or wants_buttons(questions):
        return False
    if any(q.multi_select for q in questions) and not caps.native_multi:
        return False
    return len(questions) == 1 or caps.native_several


def prompt_buttons(question: Question) -> tuple[Button, ...]:
    return (*_option_buttons(question), Button(OTHER_BUTTON, "other"), Button(SKIP_BUTTON, "skip"))


def _option_buttons(question: Question) -> tuple[Button, ...]:
    return tuple(
        Button(label=o.label, action=i, primary=(i == 0 and o.label.endswith("(Recommended)")))
        for i, o in enumerate(question.options)
    )


def native_controls(locale: str) -> NativeControls:
    return NativeControls(
        done=tr(locale, "Done"), submit=tr(locale, "Submit"), other=tr(locale, "Other…"),
        skip=tr(locale, "Skip"), back=tr(locale, "Back"), next=tr(locale, "Next"),
        chosen=tr(locale, "answered"))


def native_prompt(questions: list[Question], partial: Mapping[str, list[str]],
                  locale: str) -> NativePrompt:
    """The questions as taps, each showing what the stored partial answer already chose."""
    out: list[NativeQuestion] = []
    for q in questions:
        given = partial.get(q.id, [])
        labels = [o.label for o in q.options]
        out.append(NativeQuestion(
            id=q.id, header=q.header, question=q.question, options=_option_buttons(q),
            multi_select=q.multi_select,
            chosen=tuple(i for i, label in enumerate(labels) if label in given),
            free_text=any(a not in labels for a in given)))
    return NativePrompt(questions=tuple(out), controls=native_controls(locale))


def build_prompt(record: QuestionRecord, caps: Capabilities | bool,
                 partial: Mapping[str, list[str]] | None = None) -> Prompt:
    """The prompt for one surface: buttons, native taps or numbered text, as `caps` allow.

    A bare bool is the old rule (buttons or not, one single-select question only)."""
    if isinstance(caps, bool):
        caps = Capabilities(buttons=caps)
    questions = list(record.request.questions)
    expires = ms_to_dt(record.expires_at)
    first = questions[0]
    body_lines = [first.question] + [
        f"• {o.label} — {o.description}" for o in first.options if o.description
    ]
    locale = "en"
    native = (native_prompt(questions, partial or {}, locale)
              if wants_native(questions, caps) else None)
    return Prompt(
        question_id=record.id,
        agent=record.agent,
        session=record.session,
        questions=tuple(
            PromptQuestion(
                id=q.id,
                header=q.header,
                question=q.question,
                options=tuple((o.label, o.description) for o in q.options),
                multi_select=q.multi_select,
            )
            for q in questions
        ),
        expires_at=expires,
        text=prompt_text(questions, expires),
        title=first.header,
        body="\n".join(body_lines),
        buttons=prompt_buttons(first) if caps.buttons and wants_buttons(questions) else None,
        locale=locale,
        native=native,
    )


def _is_label(question: Question, answer: str) -> bool:
    return any(o.label == answer for o in question.options)


def final_kind(result: AskResult) -> FinalKind:
    if result.status == "answered":
        return "answered"
    return result.reason or "cancelled"


def status_line(result: AskResult, questions: list[Question]) -> str:
    """`Answered: <labels>`, or `Answered` when any answer is free text (never echoed)."""
    kind = final_kind(result)
    if kind != "answered":
        return {"skipped": "Skipped", "expired": "Expired", "cancelled": "Cancelled",
                "undelivered": "Undelivered"}[kind]
    answers = result.answer_map()
    labels: list[str] = []
    for q in questions:
        for a in answers.get(q.id, []):
            if not _is_label(q, a):
                return "Answered"
            labels.append(a)
    return f"Answered: {', '.join(labels)}" if labels else "Answered"


def summary(result: AskResult, questions: list[Question]) -> str:
    """The timeline line: `Header: answer, answer` per question, or Skipped / Expired / …."""
    if result.status != "answered":
        return status_line(result, questions)
    answers = result.answer_map()
    return "; ".join(f"{q.header}: {', '.join(answers.get(q.id, []))}" for q in questions)
