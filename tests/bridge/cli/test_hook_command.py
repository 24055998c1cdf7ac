"""`askbridge hook claude-pre-tool-use` as Claude Code runs it: the documented event on stdin,
exactly one decision on stdout and exit 0; malformed stdin is one line on stderr and exit 1."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import Any

import pytest

from bridge import AgentName, ApprovalDecided, SessionKey, SurfaceId, UserRef
from tests.adapters.webhook.support import post_reply
from tests.bridge.shell import ASKBRIDGE
from tests.harness import (
    AGENT_TOKEN,
    SUB_TOKEN,
    Running,
    clean_env,
    free_port,
    make_config,
    running,
    until,
)

PAYLOADS = Path(__file__).resolve().parents[2] / "fakes" / "payloads" / "claude_code"


async def hook(cwd: Path, stdin: bytes, *args: str, **env: str) -> tuple[int, str, str]:
    """Run the hook as Claude Code does: the event on stdin, the environment it was given."""
    proc = await asyncio.create_subprocess_exec(
        *ASKBRIDGE, "hook", "claude-pre-tool-use", *args, cwd=cwd, env=clean_env(**env),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), 120)
    finally:
        if proc.returncode is None:  # the test failed or gave up on it: nothing outlives it
            proc.kill()
            await proc.wait()
    return proc.returncode or 0, out.decode(), err.decode()


def fixture(name: str) -> bytes:
    return (PAYLOADS / name).read_bytes()


def decision_of(out: str) -> dict[str, Any]:
    printed = json.loads(out)
    assert list(printed) == ["hookSpecificOutput"]
    inner = printed["hookSpecificOutput"]
    assert inner["hookEventName"] == "PreToolUse"
    return dict(inner)


@pytest.mark.parametrize("stdin", [
    fixture("pre_tool_use_truncated.txt"), fixture("post_tool_use_write.json"), b"", b"[1, 2]",
    b"\xff\xfe not utf-8", b'{"hook_event_name": "PreToolUse", "tool_name": "Bash"}',
])
async def test_malformed_stdin_is_one_line_on_stderr_and_exit_1(tmp_path: Path,
                                                                stdin: bytes) -> None:
    code, out, err = await hook(tmp_path, stdin, ASKBRIDGE_TOKEN=AGENT_TOKEN)
    assert code == 1
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err  # one line, never a traceback
    assert err.startswith("askbridge hook: ") and "PreToolUse hook" in err


async def test_a_server_that_is_down_hands_the_decision_back_to_claude_code(
        tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    code, out, err = await hook(tmp_path, fixture("pre_tool_use_bash.json"),
                                ASKBRIDGE_URL=url, ASKBRIDGE_TOKEN=AGENT_TOKEN)
    assert code == 0, err
    decided = decision_of(out)
    assert decided["permissionDecision"] == "ask"
    assert f"not reachable at {url}" in decided["permissionDecisionReason"]


async def test_no_token_anywhere_hands_the_decision_back_with_what_to_set(tmp_path: Path) -> None:
    code, out, _ = await hook(tmp_path, fixture("pre_tool_use_bash.json"),
                              ASKBRIDGE_URL=f"http://127.0.0.1:{free_port()}")
    assert code == 0
    decided = decision_of(out)
    assert decided["permissionDecision"] == "ask"
    assert "ASKBRIDGE_TOKEN" in decided["permissionDecisionReason"]


async def decide_when_pending(r: Running, text: str) -> None:
    await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
    async with r.http() as http:
        assert (await post_reply(http, text)).json()["accepted"] is True


@pytest.mark.parametrize(("reply", "decided", "reason"), [
    ("approve", "allow", "Approved by "),
    ("reject not on a Friday", "deny", ": not on a Friday"),
])
async def test_a_person_decides_the_tool_use(tmp_path: Path, reply: str, decided: str,
                                             reason: str) -> None:
    async with running(make_config(tmp_path)) as r:
        deciding = asyncio.create_task(decide_when_pending(r, reply))
        code, out, err = await hook(tmp_path, fixture("pre_tool_use_bash.json"),
                                    ASKBRIDGE_URL=r.url, ASKBRIDGE_TOKEN=AGENT_TOKEN)
        await deciding
        assert code == 0, err
        printed = decision_of(out)
        assert set(printed) == {"hookEventName", "permissionDecision",
                                "permissionDecisionReason"}
        assert printed["permissionDecision"] == decided
        assert reason in printed["permissionDecisionReason"]
        # The person was asked about exactly the tool input, in the Claude session's own session.
        asked = await r.bridge.store.approvals_of(
            AgentName("assistant"), SessionKey("claude:8c35adc1-5b7e-4d0c-9a51-3f1e2d4c6b70"))
        assert [a.request.arguments for a in asked] == [
            json.loads(fixture("pre_tool_use_bash.json"))["tool_input"]]
        assert asked[0].request.tool == "Bash"
        assert asked[0].request.timeout_seconds == 540  # under Claude Code's 600 s hook limit


async def test_no_answer_hands_the_decision_back_to_claude_code(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        running_hook = asyncio.create_task(hook(
            tmp_path, fixture("pre_tool_use_write.json"), "--session", "hooked",
            ASKBRIDGE_URL=r.url, ASKBRIDGE_TOKEN=AGENT_TOKEN))
        try:
            pending = await until(lambda: r.bridge.store.pending_questions())
            async with r.client() as client:
                await client.cancel_approval(pending[0].id)
            code, out, err = await running_hook
        finally:
            running_hook.cancel()
        assert code == 0, err
        printed = decision_of(out)
        assert printed["permissionDecision"] == "ask"
        assert "cancelled" in printed["permissionDecisionReason"]


async def test_a_subagent_token_is_refused_and_claude_code_decides(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        code, out, _ = await hook(tmp_path, fixture("pre_tool_use_bash.json"),
                                  ASKBRIDGE_URL=r.url, ASKBRIDGE_TOKEN=SUB_TOKEN)
        assert code == 0
        decided = decision_of(out)
        assert decided["permissionDecision"] == "ask"
        assert "askbridge refused the approval" in decided["permissionDecisionReason"]


async def edit_when_pending(r: Running, arguments: dict[str, Any]) -> None:
    """The person approves an edit of the arguments (from the web card or a modal)."""
    pending = await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
    decided = await r.bridge.receiver.approval_decided(ApprovalDecided(
        SurfaceId("webhook:sms:+100"), UserRef("+100"), pending[0].id, "approve",
        authorized=True, arguments=arguments))
    assert decided.accepted


async def test_an_edit_runs_as_edited(tmp_path: Path) -> None:
    edited = {"command": "./deploy.sh --build 1432 --env staging"}
    async with running(make_config(tmp_path)) as r:
        editing = asyncio.create_task(edit_when_pending(r, edited))
        code, out, err = await hook(tmp_path, fixture("pre_tool_use_bash.json"),
                                    ASKBRIDGE_URL=r.url, ASKBRIDGE_TOKEN=AGENT_TOKEN)
        await editing
        assert code == 0, err
        printed = decision_of(out)
        assert printed["permissionDecision"] == "allow"
        assert printed["updatedInput"] == edited


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_claude_code_stopping_the_hook_cancels_the_approval(
        tmp_path: Path, sig: signal.Signals) -> None:
    async with running(make_config(tmp_path)) as r:
        proc = await asyncio.create_subprocess_exec(
            *ASKBRIDGE, "hook", "claude-pre-tool-use", cwd=tmp_path,
            env=clean_env(ASKBRIDGE_URL=r.url, ASKBRIDGE_TOKEN=AGENT_TOKEN),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        assert proc.stdin is not None
        proc.stdin.write(fixture("pre_tool_use_bash.json"))
        proc.stdin.close()
        pending = await until(lambda: r.bridge.store.pending_questions())
        proc.send_signal(sig)  # Claude Code's hook timeout, or Ctrl-C by hand
        out, _ = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 0
        assert decision_of(out.decode())["permissionDecision"] == "ask"
        approval = await until(lambda: _ended(r, pending[0].id))
        assert approval.result.reason == "cancelled"


async def _ended(r: Running, approval_id: Any) -> Any:
    approval = await r.bridge.approvals.get(approval_id)
    return None if approval.pending else approval


@pytest.mark.parametrize("tool_input", [b'{"command": "echo \\ud800"}', b'{"n": 1e999}',
                                        b'{"n": NaN}'])
async def test_an_event_json_cannot_carry_on_is_handed_back_not_a_traceback(
        tmp_path: Path, tool_input: bytes) -> None:
    """A PreToolUse event whose input holds what JSON cannot send on (a lone surrogate, which
    JavaScript's JSON.stringify writes as `\\ud800`; an infinity; NaN) is still an event:
    Claude Code gets `ask` and exit 0, never a traceback with no decision."""
    stdin = (b'{"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash", '
             b'"tool_input": ' + tool_input + b"}")
    async with running(make_config(tmp_path)) as r:
        code, out, err = await hook(tmp_path, stdin, ASKBRIDGE_URL=r.url,
                                    ASKBRIDGE_TOKEN=AGENT_TOKEN)
    assert code == 0, err
    assert "Traceback" not in err
    assert decision_of(out)["permissionDecision"] == "ask"
