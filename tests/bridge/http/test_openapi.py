"""The OpenAPI document: every documented operation served, statuses, schemas and the contract's
limits where JSON Schema can say them."""

from __future__ import annotations

from pathlib import Path

from tests.harness import AGENT_TOKEN, make_config, running
from tests.samples import DEPLOY

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}


async def test_query_parameters_are_checked_and_every_documented_operation_is_served(
        tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        qid = (await http.post("/v1/sessions/main/questions", json=DEPLOY,
                               headers=AUTH)).json()["id"]
        for path, name, value in ((f"/v1/questions/{qid}/result", "wait", "soon"),
                                  ("/v1/sessions/main/timeline", "limit", "2.5")):
            bad = await http.get(path, params={name: value}, headers=AUTH)
            assert bad.status_code == 422, path
            assert [d["loc"] for d in bad.json()["details"]] == [f"query.{name}"]
        pending = await http.get(f"/v1/questions/{qid}/result", params={"wait": "0.05"},
                                 headers=AUTH)
        assert pending.status_code == 202
        line = await http.get("/v1/sessions/main/timeline", params={"limit": "1"}, headers=AUTH)
        assert [q["id"] for q in line.json()["questions"]] == [qid]
        # The document comes from declarations the server does not serve itself: every
        # operation it lists must reach a route (refused for want of a token, not 404/405).
        spec = (await http.get("/openapi.json")).json()
        served = [(method, path) for path, operations in spec["paths"].items()
                  for method, operation in operations.items()
                  if operation.get("security") == [{"bearer": []}]]  # the agents' API
        assert len(served) == 20  # questions 10, approvals 6, rules 2, audit 2
        for method, path in served:
            concrete = (path.replace("{session}", "main").replace("{question_id}", qid)
                        .replace("{approval_id}", qid).replace("{rule_id}", "r_1"))
            assert (await http.request(method.upper(), concrete)).status_code == 401, path


async def test_openapi_and_health(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.http() as http:
        assert (await http.get("/healthz")).json()["ok"] is True
        spec = (await http.get("/openapi.json")).json()
    schemas = spec["components"]["schemas"]
    assert spec["components"]["securitySchemes"]["bearer"] == {
        "type": "http", "scheme": "bearer", "description": ANY_TEXT}
    expected = {  # every status each route answers (405 everywhere: a wrong method)
        ("/v1/sessions/{session}/ask", "post"): {"200", "401", "403", "405", "409", "413", "415",
                                                 "422", "503"},
        ("/v1/sessions/{session}/questions", "post"): {"202", "401", "403", "405", "409", "413",
                                                       "415", "422"},
        ("/v1/questions/{question_id}", "get"): {"200", "401", "404", "405"},
        ("/v1/questions/{question_id}/result", "get"): {"200", "202", "401", "404", "405", "422"},
        ("/v1/questions/{question_id}/cancel", "post"): {"200", "401", "404", "405"},
        ("/v1/questions/{question_id}/wait", "post"): {"200", "401", "404", "405", "503"},
        ("/v1/questions/{question_id}/host-answer", "post"): {"200", "401", "403", "404", "405",
                                                              "413", "415", "422"},
        ("/v1/sessions/{session}/timeline", "get"): {"200", "401", "405", "422"},
        ("/v1/me", "get"): {"200", "401", "405"},
        ("/v1/channels/webhook/{name}", "post"): {"200", "401", "404", "405", "413", "415",
                                                  "422", "503"},
    }
    for (path, method), statuses in expected.items():
        operation = spec["paths"][path][method]
        assert set(operation["responses"]) == statuses, (path, set(operation["responses"]))
        assert operation["security"] in ([{"bearer": []}], [{"signature": []}]), path
        for status, response in operation["responses"].items():
            schema = response["content"]["application/json"]["schema"]
            assert schema != {}, (path, status)
            if status.startswith("4"):
                assert schema == {"$ref": "#/components/schemas/Error"}, (path, status)
    assert set(schemas["Error"]["required"]) == {"error", "details"}
    assert [s["$ref"].rsplit("/", 1)[1] for s in schemas["AskResult"]["oneOf"]] == [
        "Answered", "NoAnswer"]
    assert "answeredBy" in schemas["QuestionRecord"]["properties"]
    assert schemas["Me"]["properties"]["hostForm"]["enum"] == ["race", "off"]
    assert "createdAt" in schemas["Created"]["required"]
    create = spec["paths"]["/v1/sessions/{session}/questions"]["post"]
    assert [p["schema"]["type"] for p in create["parameters"] if p["name"] == "attach"] == [
        "boolean"]
    host_answer = spec["paths"]["/v1/questions/{question_id}/host-answer"]["post"]
    assert host_answer["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/HostAnswer"}
    # The contract's limits, where JSON Schema can say them.
    questions = schemas["AskRequest"]["properties"]["questions"]
    assert (questions["minItems"], questions["maxItems"]) == (1, 3)
    question = schemas["Question"]["properties"]
    assert question["id"]["maxLength"] == 64 and question["id"]["pattern"] == "^[a-z][a-z0-9_]*$"
    assert (question["options"]["minItems"], question["options"]["maxItems"]) == (2, 4)
    links = spec["paths"]["/v1/sessions/{session}/questions"]["post"]["responses"]["202"]["links"]
    assert {link["operationId"] for link in links.values()} >= {"get_question", "get_result",
                                                                "cancel_question"}


class _AnyText:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and bool(other)


ANY_TEXT = _AnyText()


def test_trimmed_text_patterns_match_what_the_contract_accepts() -> None:
    """The schema's patterns for trimmed text say exactly what the contract checks: a label of
    64 characters with spaces around passes, 65 does not, blank does not."""
    import re

    from bridge.http.openapi import request_schemas
    from bridge.model.contract import LABEL_MAX

    pattern = re.compile(request_schemas()["Option"]["properties"]["label"]["pattern"])
    assert pattern.search("  " + "a" * LABEL_MAX + "\n ")
    assert pattern.search("a b")
    assert not pattern.search("a" * (LABEL_MAX + 1))
    assert not pattern.search(" \t ")
    assert not pattern.search("")


ODD_TEXTS = ["\x1f", "\x1c\x1d", "\x85", "\ufeff", "\x01", "\x7f\x9f", " \x01 ", "\u200b",
             "\u3000a\u3000", "a\x1f", "\x00", "\xa0", "\u2028x", " x ", "x"]


def test_the_schema_and_the_contract_agree_on_spaces_and_control_characters() -> None:
    """Every text the published schema lets through is accepted, and every one it refuses is
    refused: whitespace is the same set for both (JSON Schema's `\\s` is not Python's), and text
    needs a visible character (only spaces or control characters is blank)."""
    import jsonschema  # type: ignore[import-untyped]  # no stubs; only is_valid is used
    import jsonschema_rs  # Rust's regex: `\s` as in most JSON Schema tools, not as Python's

    from bridge.http.openapi import request_schemas
    from bridge.model.validation import InvalidRequest, parse_ask_request

    defs = request_schemas()
    for field, make in (
            ("label", lambda t: {"options": [{"label": t}, {"label": "Two"}]}),
            ("header", lambda t: {"header": t}),
            ("question", lambda t: {"question": t})):
        for text in ODD_TEXTS:
            question = {"id": "q", "header": "H", "question": "Which?",
                        "options": [{"label": "One"}, {"label": "Two"}], **make(text)}
            schema = defs[{"label": "Option"}.get(field, "Question")]["properties"][field]
            by_schema = jsonschema.Draft202012Validator(schema).is_valid(text)
            assert jsonschema_rs.Draft202012Validator(schema).is_valid(text) == by_schema
            try:
                parse_ask_request({"questions": [question]})
                by_server = True
            except InvalidRequest:
                by_server = False
            # A NUL passes the pattern and is refused by name, as any string field's NUL is.
            assert by_schema == by_server or "\x00" in text, (field, repr(text), by_schema)
