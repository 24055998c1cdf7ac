"""Push payloads and `[web]` push settings, without a server."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adapters.web import create
from adapters.web.render import PUSH_MAX_BYTES, panel_url, push_bytes
from adapters.web.render import prompt as push_payload
from bridge import AdapterContext, AgentName, ConfigError, Prompt, PromptQuestion, QuestionId, SessionKey
from tests.harness import base_env, make_config


def prompt(*questions: PromptQuestion) -> Prompt:
    return Prompt(QuestionId("q_1"), AgentName("assistant"), SessionKey("main"), questions,
                  datetime(2030, 1, 1, tzinfo=UTC), text="", title="", body="", expiry="")


def question(text: str = "Where?", multi: bool = False, header: str = "Deploy") -> PromptQuestion:
    return PromptQuestion("q", header, text, (("Staging", None), ("Production", "live"),
                                               ("Canary", None)), multi)


def test_multi_select_gets_no_actions() -> None:
    assert push_payload(prompt(question(multi=True)), "u")["actions"] == []
    assert [a["title"] for a in push_payload(prompt(question()), "u")["actions"]] == [
        "Staging", "Production"]


def test_a_long_prompt_is_shortened_to_fit_one_push() -> None:
    long = "Schön " + "終" * 494  # 500 characters (the limit), three bytes each
    payload = push_payload(prompt(*(question(long, header=f"H{n}") for n in range(3))), "u")
    assert len(push_bytes(payload)) <= PUSH_MAX_BYTES
    assert payload["body"].endswith("…") and payload["body"].startswith("Schön")
    assert payload["title"] == "H0 · H1 · H2" and json.loads(push_bytes(payload)) == payload


def test_the_panel_url_escapes_the_session() -> None:
    assert panel_url("https://a.example", "bot", "fix #12/b") == (
        "https://a.example/#bot/fix%20%2312%2Fb")


@pytest.mark.parametrize(("key", "value"), [("vapid_subject", "ops@example.com"),
                                             ("vapid_subject", "mailto:nobody"),
                                             ("public_url", "ask.example.com"),
                                             ("vapid_sujbect", "mailto:a@b.example")])
def test_bad_push_settings_are_refused_by_name(tmp_path: Path, key: str, value: str) -> None:
    config = make_config(tmp_path, surfaces=["web"], web={key: value})
    with pytest.raises(ConfigError, match=key):
        create(AdapterContext(config, base_env(), "http://127.0.0.1:1"))


def test_the_worker_keeps_every_module_and_style_of_the_shell() -> None:
    """A module missing from the worker's list breaks the offline app (its import fails)."""
    import re
    from pathlib import Path

    static = Path(__file__).resolve().parents[3] / "adapters" / "web" / "static"
    listed = set(re.findall(r'"/ui/static/([\w.-]+)"', (static / "sw.js").read_text()))
    shell = {p.name for p in static.iterdir() if p.suffix in (".js", ".css") and p.name != "sw.js"}
    assert shell <= listed, f"sw.js does not keep {sorted(shell - listed)}"
