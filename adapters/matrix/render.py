"""Prompts as Matrix event contents (pure): the numbered text, one poll per question, edits, ends.

Polls use the unstable MSC3381 names (`org.matrix.msc3381.poll.*`, `org.matrix.msc1767.text`)
that Element and other current clients read, with the stable `m.poll` block beside them.
Every event we send carries `MARK` (the question id) so a reply to any of them binds to its
question, even after a restart or on another replica, without a lookup table; an approval's
events carry `SHOWN` too (the payload hash of the arguments they show), so a reply or vote on a
prompt an edit has replaced is refused as stale.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from bridge import Finalization, Prompt, PromptQuestion, Reminder, split_text, status_room, tr

MAX_TEXT = 32000
"""Matrix caps a whole event at 64 KiB (with every escape); longer text goes in parts."""
MARK = "net.askbridge.question"
POLL_INDEX = "net.askbridge.index"
ASKS = "net.askbridge.asks"
"""On a notice: what a plain reply to it is (`reason`: a rejection's reason)."""
SHOWN = "net.askbridge.payload"
"""On an approval's events: the payload hash of the arguments shown (on a notice: of those the
person was deciding on)."""
POLL_START = "org.matrix.msc3381.poll.start"
POLL_END = "org.matrix.msc3381.poll.end"
POLL_RESPONSES = ("org.matrix.msc3381.poll.response", "m.poll.response")
TEXT = "org.matrix.msc1767.text"
DISCLOSED = "org.matrix.msc3381.poll.disclosed"

Content = dict[str, Any]
MESSAGE = "m.room.message"
Step = tuple[str, Content, str]
"""One event to send: its type, its content, and its part of the transaction id."""


def wants_polls(prompt: Prompt, native: Literal["all", "single"]) -> bool:
    """Polls for every prompt (`all`), or only where the core offers buttons (`single`)."""
    return native == "all" or prompt.layout.kind == "buttons"


def shown(prompt: Prompt) -> str | None:
    """The payload hash of the arguments an approval's prompt shows; None for a question."""
    return prompt.approval.payload_hash if prompt.approval is not None else None


def marks(prompt: Prompt) -> Content:
    """The mark every event about `prompt` carries: its question, and an approval's payload."""
    payload = shown(prompt)
    return {MARK: prompt.question_id, **({SHOWN: payload} if payload else {})}


def _parts(prompt: Prompt) -> list[str]:
    return split_text(prompt.text, MAX_TEXT, last_room=status_room(prompt)) or [prompt.title]


def prompt(prompt: Prompt, native: Literal["all", "single"]) -> list[Step]:
    """What to send, in order: the numbered plain text (how to answer by text, on every client;
    a long one in several messages, the last one edited when the question ends), then a poll
    per question where polls are wanted."""
    texts = [(MESSAGE, {"msgtype": "m.text", "body": part, **marks(prompt)},
              f"text{n}" if n else "text") for n, part in enumerate(_parts(prompt))]
    polls = [(POLL_START, poll_content(prompt, index), f"poll{index}")
             for index in range(len(prompt.questions))] if wants_polls(prompt, native) else []
    return [*texts, *polls]


def final(text_id: str, poll_ids: Sequence[str], final: Finalization) -> list[Step]:
    """Every poll ended, then the prompt's last text message edited to carry the status line."""
    ends = [(POLL_END, end_content(poll_id, final), f"end{n}")
            for n, poll_id in enumerate(poll_ids)]
    return [*ends, (MESSAGE, edit_content(text_id, final), "edit")]


def _reply(event_id: str | None) -> Content:
    return {"m.relates_to": {"m.in_reply_to": {"event_id": event_id}}} if event_id else {}


def poll_question(question: PromptQuestion) -> str:
    return f"{question.header}: {question.question}"


def poll_content(prompt: Prompt, index: int) -> Content:
    """One question as a disclosed poll; answer ids are option numbers (`1`..`4`)."""
    question = prompt.questions[index]
    title = poll_question(question)
    answers = [{"id": str(n), TEXT: label, "m.id": str(n), "m.text": [{"body": label}]}
               for n, (label, _) in enumerate(question.options, start=1)]
    most = len(question.options) if question.multi_select else 1
    fallback = "\n".join([title, *(f"{n}. {label}" for n, (label, _)
                                   in enumerate(question.options, start=1))])
    return {
        POLL_START: {"kind": DISCLOSED, "max_selections": most,
                     "question": {TEXT: title, "body": title, "msgtype": "m.text"},
                     "answers": [{"id": a["id"], TEXT: a[TEXT]} for a in answers]},
        "m.poll": {"kind": "m.disclosed", "max_selections": most,
                   "question": {"m.text": [{"body": title}]},
                   "answers": [{"m.id": a["m.id"], "m.text": a["m.text"]} for a in answers]},
        TEXT: fallback,
        "body": fallback,
        **marks(prompt),
        POLL_INDEX: index,
    }


def final_text(final: Finalization) -> str:
    """The prompt's last part kept as it was, with the status line (never free text) below."""
    return f"{_parts(final.prompt)[-1]}\n\n{final.status_line}"


def edit_content(text_id: str, final: Finalization) -> Content:
    """An `m.replace` edit of the prompt text; `* …` is what clients without edits show."""
    new = {"msgtype": "m.text", "body": final_text(final)}
    return {"msgtype": "m.text", "body": f"* {new['body']}", "m.new_content": new,
            "m.relates_to": {"rel_type": "m.replace", "event_id": text_id},
            **marks(final.prompt)}


def end_content(poll_id: str, final: Finalization) -> Content:
    return {"m.relates_to": {"rel_type": "m.reference", "event_id": poll_id},
            POLL_END: {}, TEXT: final.status_line, "body": final.status_line,
            **marks(final.prompt)}


def notice_content(text: str, reply_to: str | None, question_id: str | None,
                   asks: str | None = None, shown: str | None = None) -> Content:
    """What a person is told back (a refusal, what is still missing), as a reply to them."""
    content: Content = {"msgtype": "m.notice", "body": text, **_reply(reply_to)}
    if question_id:
        content[MARK] = question_id
        if asks:
            content[ASKS] = asks
        if shown:
            content[SHOWN] = shown
    return content


def sealed(locale: str) -> str:
    return tr(locale, "I cannot read encrypted messages, so I cannot take answers in this room. "
                      "Please answer in a room without end-to-end encryption.")


def reminder_content(reminder: Reminder, prompt_text_id: str | None) -> Content:
    """A reminder is a new message (it should notify), replying to the prompt text."""
    return {"msgtype": "m.text", "body": reminder.text, **marks(reminder.prompt),
            **_reply(prompt_text_id)}
