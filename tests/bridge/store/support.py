"""Questions and answers the store tests share."""

from __future__ import annotations

from bridge.model.contract import AskResult
from bridge.model.ids import AgentName, QuestionId, SessionKey, SurfaceId, UserRef
from bridge.model.validation import parse_ask_request
from bridge.store import AnsweredBy, QuestionRecord, Resolution, now_ms
from tests.samples import DEPLOY

REQUEST = parse_ask_request(DEPLOY)


def record(qid: str, session: str = "main", expires_in: int = 60_000) -> QuestionRecord:
    created = now_ms()
    return QuestionRecord(QuestionId(qid), AgentName("a"), SessionKey(session), REQUEST,
                          "pending", created, created + expires_in)


SURFACES = [SurfaceId("web"), SurfaceId("telegram:1")]


def answered(label: str) -> Resolution:
    return Resolution(AskResult.answered({"deploy_target": [label]}), f"Deploy: {label}", now_ms(),
                      AnsweredBy(SurfaceId("telegram:1"), UserRef("7")))
