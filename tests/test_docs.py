"""The docs a new user copies from: every TOML block is a real config, named consistently."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter

from adapters.discord.config import DiscordConfig
from adapters.email.config import EmailConfig
from adapters.matrix.config import MatrixConfig
from adapters.slack.config import SlackConfig
from adapters.telegram.config import TelegramConfig
from adapters.web.config import WebConfig
from adapters.webhook.config import WebhookChannelConfig
from bridge.runtime.config import BridgeConfig, parse_config
from bridge.runtime.plugins import discover
from tests.example import uncommented

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
GUIDES = [ROOT / "docs" / f"{name}.md" for name in ("telegram", "discord", "slack", "deploy",
                                                       "email")]
SECTIONS: dict[str, Any] = {"telegram": TelegramConfig, "discord": DiscordConfig,
                            "matrix": MatrixConfig, "email": EmailConfig,
                            "slack": SlackConfig, "webhooks": dict[str, WebhookChannelConfig],
                            "web": WebConfig}


def toml_blocks() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        for i, block in enumerate(re.findall(r"```toml\n(.*?)```", doc.read_text(), re.S)):
            found.append((f"{doc.name}#{i + 1}", block))
    return found


def test_the_section_models_cover_every_adapter() -> None:
    owned = {s for p in discover() for s in p.sections}
    assert owned == set(SECTIONS)


@pytest.mark.parametrize(("where", "block"), toml_blocks())
def test_every_toml_block_is_a_config_with_only_known_keys(where: str, block: str) -> None:
    raw = tomllib.loads(block)
    config = parse_config(raw, source=where)  # unknown keys in core tables fail here
    for name in config.extra_sections():
        assert name in SECTIONS, f"{where}: unknown section [{name}]"
        TypeAdapter(SECTIONS[name]).validate_python(raw[name])  # and in adapter tables here


def test_no_doc_cites_a_design_file_users_do_not_have() -> None:
    for doc in DOCS:
        assert "DESIGN" not in doc.read_text(), doc.name


def test_guides_always_pass_the_config_file() -> None:
    for guide in GUIDES:
        for command in re.findall(r"askbridge (?:serve|doctor)\b[^`\n]*", guide.read_text()):
            assert "--config" in command, f"{guide.name}: `{command}`"


def test_one_place_lists_every_environment_variable() -> None:
    readme = ROOT / "README.md"
    table = readme.read_text().split("## Environment variables", 1)[1].split("\n## ", 1)[0]
    code = "\n".join(p.read_text() for d in ("bridge", "adapters") for p in (ROOT / d).rglob("*.py"))
    read = set(re.findall(r"\bASKBRIDGE_[A-Z_]+\b", code))
    models: list[type[BaseModel]] = [*_models(), BridgeConfig]
    defaults = {f.default for model in models
                for name, f in _fields(model) if name.endswith("_env") and isinstance(f.default, str)}
    assert read and defaults
    for var in sorted(read | defaults):
        assert f"`{var}`" in table or f"{var}`" in table, f"{var} is not in the README's table"


def _models() -> list[type[BaseModel]]:
    return [TelegramConfig, DiscordConfig, SlackConfig, WebhookChannelConfig, EmailConfig]


def _fields(model: type[BaseModel]) -> list[tuple[str, Any]]:
    fields = list(model.model_fields.items())
    for _, field in list(fields):
        sub = field.annotation
        if isinstance(sub, type) and issubclass(sub, BaseModel):
            fields += list(sub.model_fields.items())
    return fields


def test_guides_type_each_key_as_the_example_does() -> None:
    example = tomllib.loads(uncommented())
    for where, block in toml_blocks():
        for section, table in tomllib.loads(block).items():
            if section not in ("telegram", "discord", "slack") or section not in example:
                continue
            for key, value in table.items():
                if key in example[section]:
                    theirs = example[section][key]
                    assert _shape(value) == _shape(theirs), f"{where}: [{section}] {key}"


def _shape(value: Any) -> str:
    if isinstance(value, list):
        return "list[" + ",".join(sorted({_shape(v) for v in value})) + "]"
    return type(value).__name__


def test_blocks_meant_to_be_copied_are_not_commented_out() -> None:
    for where, block in toml_blocks():
        lines = [ln for ln in block.splitlines() if ln.strip()]
        assert any(not ln.lstrip().startswith("#") for ln in lines), f"{where} is all comments"


def test_readme_covers_install_and_mcp_hosts() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "python3 -m venv .venv" in readme and "pipx install ." in readme
    assert "claude mcp add askbridge" in readme and "command -v askbridge" in readme
    assert "absolute path" in readme and "MCP_TOOL_TIMEOUT" in readme


def test_slack_guide_says_how_to_find_a_dm_id() -> None:
    guide = (ROOT / "docs" / "slack.md").read_text()
    assert "app.slack.com/client/" in guide and "Copy link" in guide


def test_example_store_url_comment_is_current() -> None:
    example = (ROOT / "config" / "askbridge.example.toml").read_text()
    store = example.split("[store]", 1)[1].split("\n[", 1)[0]
    assert "reserved" not in store and "postgresql://" in store and "replicas" in store


def test_the_claude_code_settings_are_json_and_run_real_commands() -> None:
    import shlex

    from bridge.cli.command import parser
    from bridge.mcp.approval_tools import APPROVE_TOOL_USE

    text = (ROOT / "docs" / "claude-code.md").read_text()
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S)]
    hooks = next(b["hooks"]["PreToolUse"] for b in blocks if "hooks" in b)
    command = shlex.split(hooks[0]["hooks"][0]["command"])
    assert command[0].endswith("/askbridge")
    args = parser().parse_args(command[1:])
    assert args.hook_command == "claude-pre-tool-use" and args.timeout < hooks[0]["hooks"][0][
        "timeout"]  # the person's wait ends before Claude Code stops the hook
    servers = next(b["mcpServers"] for b in blocks if "mcpServers" in b)
    assert servers["askbridge"]["args"] == ["mcp"]
    assert f"--permission-prompt-tool mcp__askbridge__{APPROVE_TOOL_USE}" in text
