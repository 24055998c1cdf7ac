"""The host's form: a schema the SDK's own validation accepts in both revisions, and its answers
read back as every surface's."""

from __future__ import annotations

from typing import Any

import mcp.types as mt
import pytest
from mcp.types import methods
from mcp_types import _v2025_11_25 as v2025
from mcp_types import _v2026_07_28 as v2026
from pydantic import TypeAdapter

from bridge.mcp.host_form import ELICIT_KEY, form_schema, read_reply
from bridge.model.validation import parse_ask_request
from tests.samples import BOTH, DEPLOY

REQUEST = parse_ask_request(BOTH)


@pytest.mark.parametrize("module", [v2025, v2026], ids=["2025-11-25", "2026-07-28"])
def test_every_field_is_a_primitive_the_spec_allows(module: Any) -> None:
    strict = TypeAdapter(module.PrimitiveSchemaDefinition)
    schema = form_schema(REQUEST, "en")
    kinds = {name: type(strict.validate_python(prop)).__name__
             for name, prop in schema["properties"].items()}
    assert kinds == {"deploy_target": "TitledSingleSelectEnumSchema",
                     "deploy_target_other": "StringSchema",
                     "checks": "TitledMultiSelectEnumSchema", "checks_other": "StringSchema"}
    assert schema["properties"]["deploy_target"]["title"] == "Deploy"
    assert [o["const"] for o in schema["properties"]["checks"]["items"]["anyOf"]] == [
        "Lint", "Test", "Build"]


def test_the_sdk_validates_both_wire_forms() -> None:
    schema = form_schema(parse_ask_request(DEPLOY), "id")
    params = {"mode": "form", "message": "Deploy: Where should I deploy?",
              "requestedSchema": schema}
    pushed = methods.parse_server_request("elicitation/create", "2025-11-25", params)
    assert pushed.params.requested_schema == schema
    form = mt.ElicitRequest(params=mt.ElicitRequestFormParams(message="m",
                                                              requested_schema=schema))
    returned = mt.InputRequiredResult(input_requests={ELICIT_KEY: form}, request_state="q_1")
    methods.validate_server_result("tools/call", "2026-07-28", returned.model_dump(
        mode="json", by_alias=True, exclude_none=True))
    assert schema["properties"]["deploy_target_other"]["title"] == "Deploy: jawaban Anda sendiri"


def test_a_reply_reads_as_answers_skip_or_dismissal() -> None:
    accepted = read_reply(REQUEST, "accept", {"deploy_target": "Production",
                                              "checks": ["Lint"], "checks_other": " mine "})
    assert accepted.answers == {"deploy_target": ["Production"], "checks": ["Lint", " mine "]}
    assert read_reply(REQUEST, "accept", {}).answers == {"deploy_target": [], "checks": []}
    assert read_reply(REQUEST, "decline", None).skipped
    dismissed = read_reply(REQUEST, "cancel", None)
    assert dismissed.answers is None and not dismissed.skipped
