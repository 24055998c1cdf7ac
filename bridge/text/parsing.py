"""The plain-text reply parser shared by every text surface. Pure; never raises."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bridge.model.contract import Question
from bridge.model.labels import strip_recommended
from bridge.text.i18n import DEFAULT_LOCALE, tr

SKIP_WORDS = frozenset({"skip", "/skip", "lewati", "/lewati"})
"""Skip in every locale at once (English, Indonesian): a reply is read the same on any surface."""
CONJUNCTIONS = ("and", "dan")
"""`1 and 3`, `1 dan 3`, `lint dan build`: every locale's "and" joins choices."""
_SEPARATORS = re.compile(rf"(?:[\s,;&+]|(?:{'|'.join(CONJUNCTIONS)})(?=[\s,;]|$))+")
_NUMBER = re.compile(r"^[#(]?\s*(\d{1,6})\s*[.)]?$")
_TOKEN_NUMBER = re.compile(r"\d{1,6}(?=[\s,;&+]|$)")
_KEYED = re.compile(r"^\s*([^:\n]{1,80}?)\s*:\s?(.*)$")
_TIME = re.compile(r"^\s*\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Skip:
    """The person asked to skip the whole prompt."""


@dataclass(frozen=True, slots=True)
class Parsed:
    """What one reply said: valid answers by question id, and problems by question id."""

    answers: dict[str, list[str]] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    unplaced: str | None = None
    """Set when lines could not be matched to questions; says how to reply instead."""


ReplyOutcome = Skip | Parsed


def normalize(text: str) -> str:
    return " ".join(text.casefold().split())


def is_skip(text: str) -> bool:
    return normalize(text).rstrip(".!") in SKIP_WORDS


def _label_forms(question: Question) -> list[tuple[str, int]]:
    forms: list[tuple[str, int]] = []
    for index, option in enumerate(question.options):
        for form in {normalize(option.label), normalize(strip_recommended(option.label))}:
            if form:
                forms.append((form, index))
    return sorted(forms, key=lambda f: -len(f[0]))


def _match_label(question: Question, text: str) -> int | None:
    wanted = normalize(text)
    for candidate in (wanted, wanted.rstrip(".!")):
        for form, index in _label_forms(question):
            if form == candidate:
                return index
    return None


def _range_message(question: Question, number: int, locale: str) -> str:
    return tr(locale, "There is no option {number}: reply with a number from 1 to {count}, the "
              "option text, or your own words.", number=number, count=len(question.options))


def _choose_one_message(question: Question, locale: str) -> str:
    return tr(locale, "Choose one: this question takes a single option. Reply with one number from "
              "1 to {count}, the option text, or your own words.", count=len(question.options))


@dataclass(frozen=True, slots=True)
class Picked:
    """One question's answer read from text: canonical labels, or the person's own words."""

    answers: list[str]


@dataclass(frozen=True, slots=True)
class Refused:
    """Text that cannot stand as the answer; `message` tells the person what to send instead."""

    message: str


def _one_pick(question: Question, text: str, locale: str) -> Picked | Refused | None:
    """A list reply (`1,2`, `staging and production`) to a single-select question.

    One distinct pick (`1, 1`) is that option; several are refused (choose one); None when the
    text is not a list of picks at all (free text, or only numbers out of range like `10 20`).
    """
    split = _split_choices(question, text)
    if split is None or not split[0]:
        return None
    chosen, bad = split
    if len(set(chosen)) == 1 and not bad:
        return Picked([question.options[chosen[0]].label])
    return Refused(_choose_one_message(question, locale))


def _split_choices(question: Question, text: str) -> tuple[list[int], list[int]] | None:
    """Read `1,3` / `1 and 3` / `lint, build` as option indices; None if it is not a list."""
    rest = normalize(text)
    forms = _label_forms(question)
    chosen: list[int] = []
    bad: list[int] = []
    pos = 0
    while True:
        sep = _SEPARATORS.match(rest, pos)
        if sep:
            pos = sep.end()
        if pos >= len(rest):
            break
        number = _TOKEN_NUMBER.match(rest, pos)
        label = _label_at(forms, rest, pos)
        # A number before a label that is only that number (as in parse_answer); a longer
        # label that starts with digits ("2 weeks") is still that label.
        if label is not None and (number is None or len(label[0]) > len(number.group())):
            chosen.append(label[1])
            pos += len(label[0])
        elif number is not None:
            value = int(number.group())
            (chosen if 1 <= value <= len(question.options) else bad).append(value - 1)
            pos = number.end()
        else:
            return None
    return (chosen, bad) if chosen or bad else None


def _label_at(forms: list[tuple[str, int]], rest: str, pos: int) -> tuple[str, int] | None:
    """The label form (and its option) that `rest` holds whole at `pos`, if any."""
    for form, index in forms:
        end = pos + len(form)
        if rest.startswith(form, pos) and (end == len(rest) or _SEPARATORS.match(rest, end)):
            return form, index
    return None


def parse_answer(question: Question, text: str, locale: str = DEFAULT_LOCALE) -> Picked | Refused:
    """One question's answer from text: its labels, or the free text; or why not (in `locale`)."""
    text = text.strip()
    if not text:
        return Refused(tr(locale, "The reply was empty: reply with a number, the option text, "
                          "or your own words."))
    labels = [o.label for o in question.options]
    # A number is the option of that number, even when another option is labelled with it
    # (options "2" and "1": a reply `1` is "2"): numbers mean one thing in every prompt.
    number = _NUMBER.match(text)
    if number and 1 <= int(number.group(1)) <= len(labels):
        return Picked([labels[int(number.group(1)) - 1]])
    index = _match_label(question, text)
    if index is not None:
        return Picked([labels[index]])
    if not question.multi_select:
        number = _NUMBER.match(text)
        if number:
            value = int(number.group(1))
            if 1 <= value <= len(labels):
                return Picked([labels[value - 1]])
            return Refused(_range_message(question, value, locale))
        return _one_pick(question, text, locale) or Picked([text])
    split = _split_choices(question, text)
    if split is None:
        return Picked([text])
    chosen, bad = split
    if bad:
        return Refused(_range_message(question, bad[0] + 1, locale))
    picked = set(chosen)
    return Picked([label for i, label in enumerate(labels) if i in picked])


def _key_index(questions: list[Question], key: str) -> int | None:
    wanted = normalize(key)
    for i, q in enumerate(questions):
        if wanted in (str(i + 1), q.id.casefold(), normalize(q.header)):
            return i
    return None


def _keyed_line(questions: list[Question], line: str) -> tuple[int, str] | None:
    if _TIME.match(line):
        return None
    match = _KEYED.match(line)
    if not match:
        return None
    value = match.group(2)
    if value.startswith(("//", "\\", "/")):
        return None
    index = _key_index(questions, match.group(1))
    return (index, value) if index is not None else None


def _place_lines(
    questions: list[Question], lines: list[str], missing: list[int], locale: str
) -> tuple[dict[int, str], str | None]:
    placed: dict[int, str] = {}
    loose: list[str] = []
    last: int | None = None
    for line in lines:
        keyed = _keyed_line(questions, line)
        if keyed:
            last = keyed[0]
            placed[last] = keyed[1]
        elif last is not None:
            placed[last] = f"{placed[last]}\n{line}"
        else:
            loose.append(line)
    open_slots = [i for i in missing if i not in placed]
    if len(loose) > len(open_slots):
        return placed, tr(
            locale, "I could not tell which answer belongs to which question. Reply with one "
            "line per question, like `1: 2`, or with the question's header before a colon."
        )
    for index, line in zip(open_slots, loose, strict=False):
        placed[index] = line
    return placed, None


def parse_reply(
    questions: list[Question], text: str, already: dict[str, list[str]] | None = None,
    locale: str = DEFAULT_LOCALE,
) -> ReplyOutcome:
    """Parse a reply to a whole prompt, given the answers already kept from earlier replies.

    Words of every locale are understood at once; `locale` is what problems are written in."""
    already = already or {}
    if is_skip(text):
        return Skip()
    if len(questions) == 1:
        q = questions[0]
        keyed = _keyed_line(questions, text) if "\n" not in text.strip() else None
        value = keyed[1] if keyed else text
        answer = parse_answer(q, value, locale)
        if isinstance(answer, Refused):
            return Parsed(problems={q.id: answer.message})
        return Parsed(answers={q.id: answer.answers})
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    missing = [i for i, q in enumerate(questions) if q.id not in already]
    placed, unplaced = _place_lines(questions, lines, missing or list(range(len(questions))),
                                    locale)
    answers: dict[str, list[str]] = {}
    problems: dict[str, str] = {}
    for index, value in placed.items():
        q = questions[index]
        if is_skip(value):
            return Skip()
        answer = parse_answer(q, value, locale)
        if isinstance(answer, Refused):
            problems[q.id] = answer.message
        else:
            answers[q.id] = answer.answers
    return Parsed(answers=answers, problems=problems, unplaced=unplaced)
