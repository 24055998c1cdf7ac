"""The approval card's data beside a pending question's view: an approval rides on a backing
question, so the page's lists hold questions, and those that are approvals carry `approval`."""

from __future__ import annotations

from typing import Any

from bridge import Queries, QuestionId

DECISION_ID = "decision"
"""The one question id of an approval's backing question (the only ones worth a lookup)."""


def card(view: dict[str, Any]) -> dict[str, Any]:
    """What the approval card shows of an approval record (`GET /v1/approvals/{id}`)."""
    request = view["request"]
    policy = view.get("policy") or {}
    return {
        "action": request["action"], "tool": request.get("tool"),
        "risk": request.get("risk", "medium"), "arguments": request.get("arguments") or {},
        "argumentsSchema": request.get("argumentsSchema"),
        "allowEdit": bool(request.get("allowEdit", request.get("arguments") is not None)),
        "hash": view["payloadHash"], "status": view["status"], "result": view.get("result"),
        "votes": {"have": sum(1 for v in view.get("votes", []) if v["decision"] == "approve"
                              and v.get("payloadHash", view["payloadHash"]) == view["payloadHash"]),
                  "required": policy.get("required", 1)},
    }


async def with_cards(queries: Queries, views: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each view, with `approval` (the card) when it is an approval's backing question."""
    ids = [QuestionId(v["id"]) for v in views if _decision(v)]
    found = await queries.approval_views(ids) if ids else {}
    return [{**v, "approval": card(found[v["id"]])} if v["id"] in found else v for v in views]


def _decision(view: dict[str, Any]) -> bool:
    questions = view["request"]["questions"]
    return len(questions) == 1 and questions[0]["id"] == DECISION_ID
