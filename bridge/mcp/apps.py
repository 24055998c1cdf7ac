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

from bridge.core.broker import Broker
from bridge.core.receiver import canonical_answers, check_answers
from bridge.model.contract import AskResult
from bridge.model.ids import AgentName, QuestionId, SessionKey, SurfaceId, UserRef
from bridge.store.records import AnsweredBy, QuestionRecord
from bridge.text.i18n import DEFAULT_LOCALE, LOCALES, N_, tr

EXTENSION = "io.modelcontextprotocol/ui"
CARD_URI = "ui://askbridge/question"
CARD_MIME = "text/html;profile=mcp-app"
ANSWER_TOOL = "answer_question"
SURFACE = SurfaceId("mcp:app")
"""Who answered, in the record: the person, through the host's card."""
CARD_WORDS = (N_("Question"), N_("Choose one"), N_("Choose all that apply"), N_("Other"),
              N_("Type your own answer"), N_("Other answer for {header}"), N_("Submit"),
              N_("Skip"), N_("Answered"), N_("Skipped"), N_("This question has already ended."))
HERE = Path(__file__).resolve().parent / "card"


def host_renders_apps(capabilities: mt.ClientCapabilities | None) -> bool:
    """Whether the host declared the MCP Apps extension (in `extensions`, or `experimental`)."""
    if capabilities is None:
        return False
    extensions = (capabilities.model_extra or {}).get("extensions") or {}
    experimental = capabilities.experimental or {}
    return EXTENSION in extensions or EXTENSION in experimental


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
        inputSchema={"type": "object", "properties": {"answers": answers,
                                                      "question_id": {"type": "string"},
                                                      "locale": {"type": "string"}},
                     "required": ["answers"]},
        _meta={"ui": {"resourceUri": CARD_URI, "visibility": ["app"]}},
    )


def card_resource() -> mt.Resource:
    return mt.Resource(uri=CARD_URI, name="askbridge-question", title="askbridge question",
                       mimeType=CARD_MIME, _meta={"ui": {"prefersBorder": True}})


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
    return mt.CallToolResult(content=[mt.TextContent(type="text", text=text)], isError=True)


async def answer(broker: Broker, agent: str, session: str, arguments: dict[str, Any]
                 ) -> mt.CallToolResult:
    """Answer (or skip) the calling agent's pending question from the card."""
    chosen = arguments.get("locale")  # the card's language, for what the person reads
    locale = chosen if isinstance(chosen, str) and chosen in LOCALES else DEFAULT_LOCALE
    record = await _pending(broker, agent, session, arguments.get("question_id"))
    if record is None:
        return failure(tr(locale, "There is no pending question of this agent to answer; it "
                                  "may have ended already."))
    given = arguments.get("answers")
    if given is None:
        result = AskResult.no_answer("skipped")
    elif not isinstance(given, dict) or not all(
            isinstance(v, list) and all(isinstance(a, str) for a in v) for v in given.values()):
        return failure('Send {"answers": {"<question id>": ["<label or text>"]}} or '
                       '{"answers": null} to skip.')  # for a host's developer, not a person
    else:
        questions = list(record.request.questions)
        problem = check_answers(questions, given, locale)
        if problem:
            return failure(problem)
        result = AskResult.answered(canonical_answers(questions, given))
    if not await broker.resolve(record.id, result, AnsweredBy(SURFACE, UserRef(agent))):
        return failure(tr(locale, "This question has already ended."))
    return mt.CallToolResult(content=[mt.TextContent(type="text", text=tr(locale, "Answered"))],
                             structuredContent=result.to_json())


async def _pending(broker: Broker, agent: str, session: str, question_id: object
                   ) -> QuestionRecord | None:
    if isinstance(question_id, str) and question_id:
        record = await broker.store.get_question(QuestionId(question_id))
        mine = record is not None and record.agent == agent and record.pending
        return record if mine else None
    line = await broker.store.timeline(AgentName(agent), SessionKey(session), 5)
    return next((r for r in line if r.pending), None)
