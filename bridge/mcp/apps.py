"""The question card for hosts that render MCP Apps (the `io.modelcontextprotocol/ui` extension).

`ask_user` names the card (`_meta.ui.resourceUri`); a host that declares the extension reads
`ui://askbridge/question` (HTML in the web UI's look and languages), shows it while the call
waits, and hands it the call's input. The person's answer comes back through `answer_question`,
an app-only tool (`visibility: ["app"]`: hosts keep it from the model) that answers only the
calling agent's own pending question: another agent's token finds nothing to answer.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path
from typing import Any

import mcp.types as mt
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID

from bridge.core.broker import Broker
from bridge.core.receiver import Receiver
from bridge.model.ids import AgentName, QuestionId, SessionKey, SurfaceId, UserRef
from bridge.model.inbound import AnswerSubmitted
from bridge.store.records import QuestionRecord
from bridge.text.i18n import DEFAULT_LOCALE, LOCALES, N_, tr

EXTENSION = EXTENSION_ID
CARD_URI = "ui://askbridge/question"
CARD_MIME = APP_MIME_TYPE
ANSWER_TOOL = "answer_question"
SURFACE = SurfaceId("mcp:app")
"""Who answered, in the record: the person, through the host's card."""
CARD_WORDS = (N_("Question"), N_("Choose one"), N_("Choose all that apply"), N_("Other"),
              N_("Type your own answer"), N_("Other answer for {header}"), N_("Submit"),
              N_("Skip"), N_("Answered"), N_("Skipped"), N_("This question has already ended."))
HERE = Path(__file__).resolve().parent / "card"
CARD_META = {"ui": {"prefersBorder": True}}


def ask_meta() -> dict[str, Any]:
    """`ask_user`'s `_meta`: the card that shows its question."""
    return {"ui": {"resourceUri": CARD_URI}}


def answer_tool() -> mt.Tool:
    answers = {"type": ["object", "null"], "additionalProperties": {
        "type": "array", "items": {"type": "string", "maxLength": 2000}, "maxItems": 20}}
    return mt.Tool(
        name=ANSWER_TOOL, title="Answer the pending question",
        description="For askbridge's question card only: the person's answers (option labels "
                    "or their own words per question id), or null to skip.",
        input_schema={"type": "object", "properties": {"answers": answers,
                                                       "question_id": {"type": "string"},
                                                       "locale": {"type": "string"}},
                      "required": ["answers"]},
        _meta={"ui": {"resourceUri": CARD_URI, "visibility": ["app"]}},
    )


def card_resource() -> mt.Resource:
    return mt.Resource(uri=CARD_URI, name="askbridge-question", title="askbridge question",
                       mime_type=CARD_MIME, _meta=CARD_META)


def card_contents() -> mt.ReadResourceResult:
    return mt.ReadResourceResult(contents=[mt.TextResourceContents(
        uri=CARD_URI, mime_type=CARD_MIME, text=card_html(), _meta=CARD_META)])


@functools.cache
def card_html() -> str:
    """The card: the web UI's stylesheet, its words in every language, and the script."""
    try:
        css = (resources.files("adapters.web") / "static" / "app.css").read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        css = ""  # the web adapter is not installed: the card still works, unstyled
    strings = {locale: {w: tr(locale, w) for w in CARD_WORDS} for locale in LOCALES}
    data = json.dumps(strings, ensure_ascii=False).replace("<", "\\u003c")
    script = (HERE / "card.js").read_text("utf-8")
    return ((HERE / "card.html").read_text("utf-8").replace("{{css}}", css.replace("</", "<\\/"))
            .replace("{{strings}}", data).replace("{{script}}", script))


def failure(text: str) -> mt.CallToolResult:
    return mt.CallToolResult(content=[mt.TextContent(type="text", text=text)], is_error=True)


async def answer(broker: Broker, receiver: Receiver, agent: str, session: str,
                 arguments: dict[str, Any]) -> mt.CallToolResult:
    """Answer (or skip) the calling agent's pending question from the card: checked like any
    form's answer."""
    chosen = arguments.get("locale")  # the card's language, for what the person reads
    locale = chosen if isinstance(chosen, str) and chosen in LOCALES else DEFAULT_LOCALE
    record = await _pending(broker, agent, session, arguments.get("question_id"))
    if record is None:
        return failure(tr(locale, "There is no pending question of this agent to answer; it "
                                  "may have ended already."))
    given = arguments.get("answers")
    if given is not None and (not isinstance(given, dict) or not all(
            isinstance(v, list) and all(isinstance(a, str) for a in v) for v in given.values())):
        return failure('Send {"answers": {"<question id>": ["<label or text>"]}} or '
                       '{"answers": null} to skip.')  # for a host's developer, not a person
    reply = await receiver.host_answered(AnswerSubmitted(
        surface=SURFACE, user=UserRef(agent), question_id=record.id, answers=given,
        locale=locale))
    if not reply.accepted:
        return failure(reply.text or tr(locale, "This question has already ended."))
    return mt.CallToolResult(content=[mt.TextContent(
        type="text", text=tr(locale, "Skipped") if given is None else tr(locale, "Answered"))])


async def _pending(broker: Broker, agent: str, session: str, question_id: object
                   ) -> QuestionRecord | None:
    if isinstance(question_id, str) and question_id:
        record = await broker.store.get_question(QuestionId(question_id))
        mine = record is not None and record.agent == agent and record.pending
        return record if mine else None
    line = await broker.store.timeline(AgentName(agent), SessionKey(session), 5)
    return next((r for r in line if r.pending), None)
