"""What an approval says on every surface: its synthesized question, its prompt text, the words
a reply decides with, and its status lines. The agent's words (action, tool, arguments) pass
through untouched; everything around them is in the surface's locale."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from bridge.model.approval import ApprovalRequest
from bridge.model.prompt import Asked, Button, ButtonsLayout, Layout, Prompt, PromptQuestion, TextLayout
from bridge.text.i18n import LOCALES, N_, tr

HEADER = N_("Approval")
APPROVE = N_("Approve")
REJECT = N_("Reject")
ALLOW = N_("Allow for 1 h")
OPTIONS = (APPROVE, REJECT, ALLOW)
"""The backing question's options, in this order: a tap on option n is this decision."""
DECISION_ID = "decision"
"""The backing question's id."""
RISK = {"low": N_("low"), "medium": N_("medium"), "high": N_("high")}
FINGERPRINT = 12
"""Hex characters of the payload hash a prompt shows (and a reply may quote as `#…`)."""

APPROVE_WORDS = frozenset({"approve", "approved", "setuju", "setujui", "/approve"})
REJECT_WORDS = frozenset({"reject", "rejected", "tolak", "/reject"})
ALLOW_WORDS = frozenset({"allow", "izinkan", "/allow"})
_QUOTED = re.compile(r"(?:^|\s)#([0-9a-fA-F]{6,64})\b")
_LEAD = re.compile(r"^\s*(\S+)[\s:,.-]*(.*)$", re.S)

Choice = Literal["approve", "reject", "allow"]


@dataclass(frozen=True, slots=True)
class DecisionText:
    """A reply read as a decision: what, the reason of a rejection, the payload it quoted."""

    choice: Choice
    reason: str = ""
    quoted: str | None = None
    """Hex the reply quoted as `#…`: the start of the payload hash it was shown."""


def option_labels(locale: str) -> list[str]:
    return [tr(locale, label) for label in OPTIONS]


def _choice_of(word: str) -> Choice | None:
    low = word.casefold().rstrip(":,.;!)")
    for number, choice in (("1", "approve"), ("2", "reject"), ("3", "allow")):
        if low == number:
            return choice  # type: ignore[return-value]
    if low in APPROVE_WORDS:
        return "approve"
    if low in REJECT_WORDS:
        return "reject"
    if low in ALLOW_WORDS:
        return "allow"
    return None


def _label_choice(text: str) -> Choice | None:
    """A reply that is a whole option label, in any locale (`Allow for 1 h`, `Izinkan 1 jam`)."""
    low = text.casefold().strip()
    for locale in LOCALES:
        for label, choice in zip(option_labels(locale), ("approve", "reject", "allow"),
                                 strict=True):
            if low == label.casefold():
                return choice  # type: ignore[return-value]
    return None


def parse_decision(text: str) -> DecisionText | None:
    """`approve`/`setuju`/`1`, `reject <reason>`/`tolak <alasan>`/`2 <reason>`, `allow`/`3`
    (or a whole option label), each optionally quoting `#<hash start>`; None for anything else."""
    quoted = _QUOTED.search(text)
    rest = _QUOTED.sub(" ", text).strip()
    label = _label_choice(rest)
    if label is not None:
        return DecisionText(label, quoted=quoted.group(1).lower() if quoted else None)
    lead = _LEAD.match(rest)
    if lead is None:
        return None
    choice = _choice_of(lead.group(1))
    if choice is None:
        return None
    if choice == "approve" and lead.group(2).strip().strip(".!"):
        return None  # `approve only on staging`, `1 question first`: not a plain approval
    reason = lead.group(2).strip() if choice == "reject" else ""
    if choice == "allow" and lead.group(2).strip().casefold() not in {"", "1h", "1 h", "1 jam",
                                                                       "for 1 h", "for 1h"}:
        return None
    return DecisionText(choice, reason, quoted.group(1).lower() if quoted else None)


def pretty_arguments(request: ApprovalRequest) -> str:
    """The arguments as indented JSON, in full (never clipped: the splitter cuts long ones)."""
    return json.dumps(request.payload, indent=2, ensure_ascii=False, sort_keys=True)


def detail_lines(request: ApprovalRequest, payload_hash: str, locale: str) -> list[str]:
    """Tool, risk, arguments and the payload fingerprint, one per line (the body under the title)."""
    lines = [request.action]
    if request.tool:
        lines.append(tr(locale, "Tool: {tool}", tool=request.tool))
    lines.append(tr(locale, "Risk: {risk}", risk=tr(locale, RISK[request.risk])))
    if request.arguments is not None:
        lines += [tr(locale, "Arguments:"), pretty_arguments(request)]
    lines.append(tr(locale, "Payload: #{fingerprint}", fingerprint=payload_hash[:FINGERPRINT]))
    return lines


def approval_text(request: ApprovalRequest, payload_hash: str, locale: str, expiry: str) -> str:
    """The plain-text prompt: what will happen, with what, how to answer, until when."""
    labels = option_labels(locale)
    return "\n".join([
        f"{tr(locale, HEADER)}: " + "\n".join(detail_lines(request, payload_hash, locale)),
        "",
        *(f"{n}) {label}" for n, label in enumerate(labels, start=1)),
        "",
        tr(locale, 'Reply "approve" (or 1) to approve, "reject <reason>" to reject, or 3 to '
           "allow this same call for 1 hour."),
        expiry,
    ])


def help_text(locale: str) -> str:
    return tr(locale, 'Reply "approve" to approve, or "reject <reason>" to reject.')


def approved_line(names: list[str], locale: str) -> str:
    """`Approved by ana, budi`."""
    return tr(locale, "Approved by {names}", names=", ".join(names))


def rejected_line(names: list[str], reason: str, locale: str) -> str:
    """`Rejected by ana: too risky` (the reason is the approver's, for everyone who saw it)."""
    if not reason:
        return tr(locale, "Rejected by {names}", names=", ".join(names))
    return tr(locale, "Rejected by {names}: {reason}", names=", ".join(names), reason=reason)


def recorded_text(have: int, needed: int, locale: str) -> str:
    return tr(locale, "Recorded: {have} of {needed} approvals.", have=have, needed=needed)


def decided_line(answers: dict[str, list[str]], locale: str) -> str:
    """The status line of a decided approval, from its backing question's answers
    (`decision`, `by`, `reason`)."""
    names = answers.get("by", [])
    if answers.get(DECISION_ID, [""])[0] == "reject":
        return rejected_line(names, " ".join(answers.get("reason", [])), locale)
    return approved_line(names, locale)


def approval_prompt(asked: Asked, request: ApprovalRequest, buttons: bool, locale: str,
                    expiry: str) -> Prompt:
    """An approval's prompt for one surface: taps where it has buttons, else numbered text."""
    labels = option_labels(locale)
    payload_hash = request.payload_hash
    layout: Layout = TextLayout()
    if buttons:
        layout = ButtonsLayout(tuple(Button(label, n, primary=(n == 0))
                                     for n, label in enumerate(labels)))
    return Prompt(
        question_id=asked.question_id, agent=asked.agent, session=asked.session,
        questions=tuple(PromptQuestion(q.id, q.header, q.question,
                                       tuple((o.label, o.description) for o in q.options),
                                       q.multi_select) for q in asked.questions),
        expires_at=asked.expires_at,
        text=approval_text(request, payload_hash, locale, expiry),
        title=tr(locale, HEADER), body="\n".join(detail_lines(request, payload_hash, locale)),
        expiry=expiry, layout=layout, locale=locale, approval=request)
