"""Neutral text the core writes: numbered prompts, status lines, timeline summaries.

Everything here is written in a locale (`tr`); the agent's own words pass through untouched.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from bridge.model.contract import AskResult, Question
from bridge.model.prompt import (
    Asked,
    Button,
    ButtonsLayout,
    Capabilities,
    FinalKind,
    Layout,
    NativeControls,
    NativePrompt,
    NativeQuestion,
    Prompt,
    PromptQuestion,
    TextLayout,
)
from bridge.text.approval_text import approval_prompt, decided_line
from bridge.text.i18n import DEFAULT_LOCALE, N_, time_of_day, tr

OTHER_BUTTON = N_("Other…")
SKIP_BUTTON = N_("Skip")
"""English message ids: show them with `tr(prompt.locale, OTHER_BUTTON)`."""
STATUS = {"skipped": N_("Skipped"), "expired": N_("Expired"), "cancelled": N_("Cancelled"),
          "undelivered": N_("Undelivered")}


def expiry_line(expires_at: datetime, locale: str = DEFAULT_LOCALE,
                now: datetime | None = None) -> str:
    """`Expires at 2:30 PM UTC (in 12 min).` — the time in the locale's own form."""
    now = now or datetime.now(UTC)
    minutes = max(0, round((expires_at - now).total_seconds() / 60))
    span = (tr(locale, "in {minutes} min", minutes=minutes) if minutes >= 1
            else tr(locale, "in under a minute"))
    return tr(locale, "Expires at {time} UTC ({span}).", time=time_of_day(locale, expires_at),
              span=span)


def _option_lines(question: Question, indent: str, locale: str) -> list[str]:
    lines = []
    for i, option in enumerate(question.options, start=1):
        detail = f" — {option.description}" if option.description else ""
        lines.append(f"{indent}{i}) {option.label}{detail}")
    lines.append(indent + tr(locale, "Other: reply with your own answer."))
    return lines


def _kind(q: Question, locale: str) -> str:
    return " " + tr(locale, "(choose one or more)") if q.multi_select else ""


def _single_text(q: Question, locale: str) -> list[str]:
    lines = [f"{q.header}: {q.question}{_kind(q, locale)}", *_option_lines(q, "", locale)]
    if q.multi_select:
        how = tr(locale, "Reply with a number, the option text, or your own words; for several "
                 'choices, list them like 1,3. Reply "skip" to skip.')
    else:
        how = tr(locale, 'Reply with a number, the option text, or your own words. Reply "skip" '
                 "to skip.")
    return [*lines, "", how]


def _multi_text(questions: list[Question], locale: str) -> list[str]:
    lines = [tr(locale, "{count} questions:", count=len(questions))]
    for n, q in enumerate(questions, start=1):
        lines += ["", f"{n}. {q.header}: {q.question}{_kind(q, locale)}",
                  *_option_lines(q, "   ", locale)]
    example = "\n".join(f"{n}: {'1,3' if q.multi_select else '2'}" for n, q in
                        enumerate(questions, start=1))
    lines += [
        "",
        tr(locale, "Reply with one line per question, each starting with its number, for "
           "example:"),
        example,
        tr(locale, "After the colon: a number, the option text, or your own words (1,3 for "
           'several choices). Reply "skip" to skip all.'),
    ]
    return lines


def prompt_text(questions: list[Question], expires_at: datetime,
                locale: str = DEFAULT_LOCALE) -> str:
    """The numbered plain-text prompt every text surface sends; its last line is the expiry."""
    return "\n".join([*_numbered(questions, locale), expiry_line(expires_at, locale)])


def _numbered(questions: list[Question], locale: str) -> list[str]:
    return (_single_text(questions[0], locale) if len(questions) == 1
            else _multi_text(questions, locale))


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


def prompt_buttons(question: Question, locale: str = DEFAULT_LOCALE) -> tuple[Button, ...]:
    return (*_option_buttons(question), Button(tr(locale, OTHER_BUTTON), "other"),
            Button(tr(locale, SKIP_BUTTON), "skip"))


def _option_buttons(question: Question) -> tuple[Button, ...]:
    return tuple(
        Button(label=o.label, action=i, primary=(i == 0 and o.label.endswith("(Recommended)")))
        for i, o in enumerate(question.options)
    )


def native_controls(locale: str) -> NativeControls:
    return NativeControls(
        done=tr(locale, "Done"), submit=tr(locale, "Submit"), other=tr(locale, OTHER_BUTTON),
        skip=tr(locale, SKIP_BUTTON), back=tr(locale, "Back"), next=tr(locale, "Next"),
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


def build_prompt(asked: Asked, caps: Capabilities | bool, locale: str = DEFAULT_LOCALE,
                 partial: Mapping[str, list[str]] | None = None) -> Prompt:
    """The prompt for one surface, in its locale: buttons, native taps or numbered text, as
    `caps` allow. A bare bool is the old rule (buttons or not, one single-select question)."""
    if isinstance(caps, bool):
        caps = Capabilities(buttons=caps)
    if asked.approval is not None:
        return approval_prompt(asked, asked.approval, caps.buttons, locale,
                               expiry_line(asked.expires_at, locale))
    questions = list(asked.questions)
    expires = asked.expires_at
    first = questions[0]
    body_lines = [first.question] + [
        f"• {o.label} — {o.description}" for o in first.options if o.description
    ]
    layout: Layout = TextLayout()
    if caps.buttons and wants_buttons(questions):
        layout = ButtonsLayout(prompt_buttons(first, locale))
    elif wants_native(questions, caps):
        layout = native_prompt(questions, partial or {}, locale)
    expiry = expiry_line(expires, locale)
    return Prompt(
        question_id=asked.question_id,
        agent=asked.agent,
        session=asked.session,
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
        text="\n".join([*_numbered(questions, locale), expiry]),
        title=first.header,
        body="\n".join(body_lines),
        expiry=expiry,
        layout=layout,
        locale=locale,
    )


def _is_label(question: Question, answer: str) -> bool:
    return any(o.label == answer for o in question.options)


def final_kind(result: AskResult) -> FinalKind:
    if result.status == "answered":
        return "answered"
    return result.reason or "cancelled"


def status_line(result: AskResult, questions: list[Question],
                locale: str = DEFAULT_LOCALE, *, approval: bool = False) -> str:
    """`Answered: <labels>`, or `Answered` when any answer is free text (never echoed); for
    an approval `Approved by ana` or `Rejected by ana: <reason>`."""
    kind = final_kind(result)
    if kind != "answered":
        return tr(locale, STATUS[kind])
    if approval:
        return decided_line(result.answer_map(), locale)
    answers = result.answer_map()
    labels: list[str] = []
    for q in questions:
        for a in answers.get(q.id, []):
            if not _is_label(q, a):
                return tr(locale, "Answered")
            labels.append(a)
    if not labels:
        return tr(locale, "Answered")
    return tr(locale, "Answered: {labels}", labels=", ".join(labels))


def summary(result: AskResult, questions: list[Question]) -> str:
    """The timeline line: `Header: answer, answer` per question, or Skipped / Expired / ….

    Kept in the record for agents and the API, so always in English."""
    if result.status != "answered":
        return status_line(result, questions)
    answers = result.answer_map()
    return "; ".join(f"{q.header}: {', '.join(answers.get(q.id, []))}" for q in questions)
