"""The approval routes' bodies in the OpenAPI document (§ request_approval's contract)."""

from __future__ import annotations

from typing import Any

from bridge.model.approval import approval_input_schema

REF = "#/components/schemas/"
STRING = {"type": "string"}
TIME = {"type": "string", "format": "date-time"}
NULLABLE_TIME = {"anyOf": [TIME, {"type": "null"}]}


def _object(required: list[str], **props: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": props}


DECIDED_BY = {"type": "array", "items": _object(["surface", "user"], surface=STRING, user=STRING)}
APPROVAL_SCHEMAS: dict[str, Any] = {
    "Approved": {**_object(["status", "arguments", "edited", "scope", "decidedBy"],
                           status={"const": "approved"}, arguments={"type": "object"},
                           edited={"type": "boolean"}, scope={"enum": ["once", "rule"]},
                           decidedBy=DECIDED_BY), "additionalProperties": False},
    "Rejected": {**_object(["status", "reason", "decidedBy"], status={"const": "rejected"},
                           reason=STRING, decidedBy=DECIDED_BY), "additionalProperties": False},
    "ApprovalNoAnswer": {**_object(["status", "reason"], status={"const": "no_answer"},
                                   reason={"enum": ["expired", "cancelled", "undelivered"]}),
                         "additionalProperties": False},
    "ApprovalResult": {"oneOf": [{"$ref": REF + "Approved"}, {"$ref": REF + "Rejected"},
                                 {"$ref": REF + "ApprovalNoAnswer"}]},
    "ApprovalCreated": _object(["id", "status", "expiresAt"], id=STRING,
                               status={"enum": ["pending", "approved"]}, expiresAt=TIME),
    "ApprovalRecord": _object(
        ["id", "kind", "agent", "session", "status", "request", "payloadHash", "policy", "votes",
         "surfaces", "deliveries", "createdAt", "expiresAt", "decidedAt", "result"],
        id=STRING, kind={"const": "approval"}, agent=STRING, session=STRING,
        status={"enum": ["pending", "approved", "rejected", "no_answer"]},
        reason={"enum": ["expired", "cancelled", "undelivered"]},
        request={"$ref": REF + "ApprovalRequest"}, payloadHash=STRING,
        policy={"type": "object", "required": ["approvers", "required", "excludeRequester"],
                "properties": {"approvers": {"type": "array", "items": STRING},
                               "required": {"type": "integer"},
                               "excludeRequester": {"type": "boolean"}}},
        votes={"type": "array", "items": _object(
            ["voter", "surface", "user", "decision", "at"], voter=STRING, surface=STRING,
            user=STRING, decision={"enum": ["approve", "reject"]},
            reason={"type": ["string", "null"]}, edited={"type": "boolean"},
            rule={"enum": ["arguments", "any", None]}, payloadHash=STRING, at=TIME)},
        surfaces={"type": "array", "items": STRING},
        deliveries={"type": "array", "items": {"$ref": REF + "Delivery"}},
        createdAt=TIME, expiresAt=TIME, decidedAt=NULLABLE_TIME,
        result={"anyOf": [{"$ref": REF + "ApprovalResult"}, {"type": "null"}]}),
    "ApprovalTimeline": _object(["session", "approvals"], session=STRING, approvals={
        "type": "array", "items": {"$ref": REF + "ApprovalRecord"}}),
    "Rule": _object(["id", "agent", "tool", "payloadHash", "anyArguments", "createdAt",
                     "expiresAt", "createdBy", "approvalId", "revokedAt"],
                    id=STRING, agent=STRING, tool={"type": ["string", "null"]},
                    payloadHash={"type": ["string", "null"]}, anyArguments={"type": "boolean"},
                    createdAt=TIME, expiresAt=TIME, createdBy=STRING,
                    approvalId={"type": ["string", "null"]}, revokedAt=NULLABLE_TIME),
    "RuleList": _object(["rules"], rules={"type": "array", "items": {"$ref": REF + "Rule"}}),
    "AuditPage": _object(["entries", "anchor", "next"], entries={"type": "array", "items": _object(
        ["seq", "at", "kind", "approvalId", "data", "prev", "hash", "time"],
        seq={"type": "integer"}, at={"type": "integer"},
        kind={"enum": ["requested", "voted", "decided", "rule_created", "rule_revoked"]},
        approvalId={"type": ["string", "null"]}, data={"type": "object"}, prev=STRING,
        hash=STRING, time=TIME)}, anchor={"anyOf": [_object(["seq", "hash"], seq={
            "type": "integer"}, hash=STRING), {"type": "null"}]},
        next={"type": ["integer", "null"]}),
    "AuditReport": _object(["ok", "entries", "brokenAt", "problem"], ok={"type": "boolean"},
                           entries={"type": "integer"}, brokenAt={"type": ["integer", "null"]},
                           problem={"type": ["string", "null"]}),
}


def approval_request_schema() -> dict[str, Any]:
    schema = approval_input_schema()
    schema.pop("$defs", None)
    return schema


def _link(operation: str, parameter: str, source: str) -> dict[str, Any]:
    return {"operationId": operation, "parameters": {parameter: source}}


APPROVAL_ID = "$response.body#/id"
APPROVAL_LINKS: dict[tuple[str, str], dict[str, Any]] = {
    ("create_approval", "202"): {
        "GetApproval": _link("get_approval", "approval_id", APPROVAL_ID),
        "GetApprovalResult": _link("get_approval_result", "approval_id", APPROVAL_ID),
        "CancelApproval": _link("cancel_approval", "approval_id", APPROVAL_ID),
        "Approvals": _link("get_approval_timeline", "session", "$request.path.session")},
    ("list_rules", "200"): {
        "RevokeRule": _link("revoke_rule", "rule_id", "$response.body#/rules/0/id")},
}
"""What a client (or a stateful fuzzer) does next with an approval route's response."""
