"""`askbridge approve` and `askbridge rules` as a shell runs them, against the real server:
the decision JSON on stdout, exit 0 approved / 4 rejected / 3 no answer, every problem at once."""

from __future__ import annotations

import asyncio
import json
import re
import signal
from pathlib import Path

from tests.adapters.webhook.support import post_reply
from tests.bridge.shell import ASKBRIDGE, run
from tests.harness import AGENT_TOKEN, Running, clean_env, make_config, running, until

DEPLOY = '{"command": "./deploy.sh --build 1432 --env prod"}'


def env(r: Running) -> dict[str, str]:
    return {"ASKBRIDGE_URL": r.url, "ASKBRIDGE_TOKEN": AGENT_TOKEN}


async def decide_when_pending(r: Running, text: str) -> None:
    await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
    async with r.http() as http:
        assert (await post_reply(http, text)).json()["accepted"] is True


async def test_approved_prints_the_arguments_to_run_and_exits_0(tmp_path: Path) -> None:
    schema = {"type": "object", "required": ["command"]}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    async with running(make_config(tmp_path)) as r:
        deciding = asyncio.create_task(decide_when_pending(r, "approve"))
        code, out, err = await run(tmp_path, "approve", "Deploy 1432 to prod", "--tool", "Bash",
                                   "--arguments", DEPLOY, "--risk", "high", "--schema",
                                   "schema.json", "--no-edit", "--timeout", "120", **env(r))
        await deciding
        assert code == 0, err
        result = json.loads(out)
        assert result["status"] == "approved" and result["arguments"] == json.loads(DEPLOY)
        found = re.search(r"requested (\S+); waiting for the decision", err)
        assert found, err
        async with r.client() as client:
            asked = (await client.approval(found.group(1)))["request"]
        assert asked == {"action": "Deploy 1432 to prod", "tool": "Bash",
                         "arguments": json.loads(DEPLOY), "argumentsSchema": schema,
                         "risk": "high", "allowEdit": False, "timeoutSeconds": 120}


async def test_rejected_exits_4_with_the_reason(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        deciding = asyncio.create_task(decide_when_pending(r, "reject too risky"))
        code, out, _ = await run(tmp_path, "approve", "Drop the old table", "--session", "db",
                                 **env(r))
        await deciding
        assert code == 4
        assert json.loads(out)["status"] == "rejected"
        assert json.loads(out)["reason"] == "too risky"


async def test_stopping_the_wait_cancels_it_and_exits_3(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        proc = await asyncio.create_subprocess_exec(
            *ASKBRIDGE, "approve", "Rotate the keys", cwd=tmp_path, env=clean_env(**env(r)),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        assert proc.stderr is not None
        line = (await asyncio.wait_for(proc.stderr.readline(), 30)).decode()
        assert "requested" in line, line
        proc.send_signal(signal.SIGINT)
        out, _ = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 3
        assert json.loads(out) == {"status": "no_answer", "reason": "cancelled"}


async def test_invalid_input_prints_every_problem(tmp_path: Path) -> None:
    code, _, err = await run(tmp_path, "approve", "Deploy", "--arguments", "{not json",
                             "--schema", str(tmp_path / "missing.json"),
                             ASKBRIDGE_TOKEN=AGENT_TOKEN)
    assert code == 2
    assert "--arguments is not JSON" in err and "missing.json cannot be read" in err
    code, _, err = await run(tmp_path, "approve", "Deploy", "--arguments", "[1, 2]",
                             ASKBRIDGE_TOKEN=AGENT_TOKEN)
    assert code == 2 and "must be a JSON object" in err
    async with running(make_config(tmp_path)) as r:
        code, _, err = await run(tmp_path, "approve", "x" * 201, "--tool", "t" * 65, **env(r))
        assert code == 2
        assert "action:" in err and "tool:" in err  # the server's 422, every detail


async def test_rules_list_when_there_are_none(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        code, out, err = await run(tmp_path, "rules", "list", **env(r))
        assert code == 0, err
        assert "No rules" in out
        code, out, _ = await run(tmp_path, "rules", "list", "--json", **env(r))
        assert code == 0 and json.loads(out) == []


async def test_allow_for_an_hour_is_a_rule_listed_and_revoked(tmp_path: Path) -> None:
    args = ("approve", "Deploy 1432 to prod", "--tool", "Bash", "--arguments", DEPLOY)
    async with running(make_config(tmp_path)) as r:
        deciding = asyncio.create_task(decide_when_pending(r, "allow"))
        code, out, _ = await run(tmp_path, *args, **env(r))
        await deciding
        assert code == 0 and json.loads(out)["scope"] == "once"
        code, out, _ = await run(tmp_path, *args, **env(r))  # nobody is asked this time
        assert code == 0 and json.loads(out)["scope"] == "rule"
        code, out, _ = await run(tmp_path, "rules", "list", **env(r))
        assert code == 0
        rule_id, agent, tool = out.split()[:3]
        assert (agent, tool) == ("assistant", "Bash") and "until" in out
        code, out, _ = await run(tmp_path, "rules", "revoke", rule_id, **env(r))
        assert code == 0 and json.loads(out)["revokedAt"]
        code, out, _ = await run(tmp_path, "rules", "list", "--json", **env(r))
        assert json.loads(out) == []
        code, _, err = await run(tmp_path, "rules", "revoke", "no-such-rule", **env(r))
        assert code == 2 and "no rule" in err


def test_every_nested_command_and_option_explains_itself() -> None:
    import argparse

    from bridge.cli.command import parser

    def commands(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        subs = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
        return dict(subs.choices)

    top = commands(parser())
    for group in ("rules", "audit", "hook"):
        for name, sub in commands(top[group]).items():
            for action in sub._actions:
                assert action.help, f"askbridge {group} {name} {action.dest} has no help text"
