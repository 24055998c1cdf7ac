"""The public face is small and pinned: what `import bridge` offers adapters and agent-side code,
and that it loads neither the server nor a web framework (as httpx pins its exported members)."""

from __future__ import annotations

import json
import subprocess
import sys

import bridge
import bridge.http

EXPORTED = {
    "Adapter", "AdapterConfig", "AdapterContext", "AdapterPlugin", "AdapterState", "AgentName",
    "AnswerSubmitted", "ApprovalDecided", "ApprovalRequest", "ApprovalResult",
    "AskRequest", "AskResult", "BadJson", "BadText", "BridgeConfig", "Button",
    "ButtonAction", "ButtonPressed", "ButtonsLayout", "Capabilities", "Checkable", "ConfigError",
    "DEFAULT_LOCALE", "Delivery", "DeliveryError", "FinalKind", "Finalization", "InboundEvent",
    "InboundReply", "InboundSink", "InvalidRequest", "LOCALES", "LOCALE_NAMES", "Layout", "Locale",
    "LongConnection", "MessageRef", "N_", "NativeControls", "NativePrompt", "NativeQuestion",
    "OTHER_BUTTON", "Observer", "Pace", "Paced", "Parsed", "Picked", "Priority", "Problem",
    "Prompt", "PromptQuestion", "Queries", "QuestionId", "Refused", "Reminder", "Reminding",
    "Routed", "RuleRevoked", "SIGNATURE_HEADER", "SKIP_BUTTON", "SelectionChanged", "SessionKey",
    "Skip",
    "StepChanged", "SubmitPressed", "SurfaceId", "TextLayout", "TextReceived", "UnsupportedMedia",
    "UserRef", "Window", "WindowsByKey", "adapter_section", "arguments_problems", "backoff",
    "backoff_delay", "caption", "client_tls", "config_problems", "count_rate_limited",
    "declared_json", "env_secret", "hand_in", "negotiate", "parse_answer",
    "parse_approval_request", "parse_ask_request", "parse_json", "parse_reply", "payload_hash",
    "prompt_text", "same_secret", "sign", "split_escaped", "split_text", "status_room",
    "surface_platform", "surface_target", "time_of_day", "tr", "translations",
    "verify_signature",
}


def test_bridge_exports_exactly_these_names() -> None:
    assert len(bridge.__all__) == len(set(bridge.__all__))
    assert set(bridge.__all__) == EXPORTED
    for name in bridge.__all__:
        assert hasattr(bridge, name), name


def test_the_web_helpers_are_their_own_face() -> None:
    assert sorted(bridge.http.__all__) == ["error_response", "read_json"]


def loaded_after(statement: str) -> list[str]:
    """The modules a fresh interpreter holds after running `statement`."""
    probe = f"import sys, json; {statement}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, timeout=60)
    return list(json.loads(done.stdout))


def tops(modules: list[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_import_bridge_loads_no_web_framework_and_no_mcp_sdk() -> None:
    loaded = loaded_after("import bridge")
    assert not tops(loaded) & {"starlette", "fastapi", "uvicorn", "mcp", "anyio"}
    assert not [m for m in loaded if m.startswith(("bridge.core", "bridge.server", "bridge.store"))]


def test_the_agent_client_loads_nothing_of_the_server() -> None:
    loaded = loaded_after("from bridge.agent.client import AskClient")
    assert not tops(loaded) & {"starlette", "fastapi", "uvicorn", "mcp", "aiosqlite", "asyncpg"}
    inner = {m.split(".")[1] for m in loaded if m.startswith("bridge.")}
    assert inner <= {"agent", "model", "text", "runtime"}, sorted(inner)
