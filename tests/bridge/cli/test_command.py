"""The real `askbridge` processes: serve on embedded defaults, ask from a shell, reply, doctor."""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import signal
import socket
from pathlib import Path

import httpx
import pytest

from tests.bridge.shell import ASKBRIDGE, run, serve
from tests.harness import clean_env, free_port, until


def modes(folder: Path) -> dict[str, str]:
    """The permission bits of `folder` (as ".") and of every file in it, as octal text."""
    found = {".": oct(folder.stat().st_mode)[-3:]}
    found.update({p.name: oct(p.stat().st_mode)[-3:] for p in folder.iterdir()})
    return found


async def test_embedded_defaults_ask_from_a_shell_answered_by_a_reply(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    async with serve(tmp_path, port) as server:
        creds = json.loads((tmp_path / ".askbridge" / "credentials.json").read_text())
        assert oct((tmp_path / ".askbridge" / "credentials.json").stat().st_mode)[-3:] == "600"
        ask = asyncio.create_task(run(tmp_path, "ask", "Deploy where?", "-o",
                                      "Staging (Recommended)", "-o", "Production",
                                      "--header", "Deploy", "--id", "deploy_target",
                                      ASKBRIDGE_URL=url))

        async def replied() -> bool:
            code, _, _ = await run(tmp_path, "reply", "2", ASKBRIDGE_URL=url)
            return code == 0

        await until(replied, timeout=30, interval=0.3)
        code, out, err = await ask
        assert code == 0, err
        # The answer was written through the write-ahead log, which is as private as the file.
        assert modes(tmp_path / ".askbridge") == {
            ".": "700", "credentials.json": "600", "askbridge.db": "600",
            "askbridge.db-wal": "600", "askbridge.db-shm": "600", "askbridge.db.lock": "600"}
        assert "asked q_" in err and "waiting for the answer" in err  # said while it blocked
        assert json.loads(out) == {"status": "answered", "answers": {"answers": {
            "deploy_target": {"answers": ["Production"]}}}}
        server.send_signal(signal.SIGTERM)
        stdout, stderr = await asyncio.wait_for(server.communicate(), 20)
    text = stdout.decode()
    # Piped (a log file, journald): no secret in the banner, only where to read them.
    assert creds["web_token"] not in text and creds["agent_token"] not in text
    assert f"{url}/?token=<web_token in .askbridge/credentials.json>" in text
    assert "token <agent_token in .askbridge/credentials.json>" in text
    assert "1) Staging (Recommended)" in text  # the console text channel showed the prompt
    assert "Deploy: Answered: Production" in text
    assert creds["agent_token"] not in stderr.decode()  # logs never carry secrets


async def test_ask_exit_code_3_on_no_answer_and_2_on_invalid(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    async with serve(tmp_path, port):
        ask = asyncio.create_task(run(tmp_path, "ask", "Go?", "-o", "A", "-o", "B",
                                      ASKBRIDGE_URL=url))

        async def skipped() -> bool:
            return (await run(tmp_path, "reply", "skip", ASKBRIDGE_URL=url))[0] == 0

        await until(skipped, timeout=30, interval=0.3)
        code, out, _ = await ask
        assert code == 3 and json.loads(out) == {"status": "no_answer", "reason": "skipped"}
        code, _, err = await run(tmp_path, "ask", "Go?", "-o", "Other", "-o", "B",
                                 ASKBRIDGE_URL=url)
        assert code == 2 and "own words" in err


async def test_doctor_and_bad_config(tmp_path: Path) -> None:
    code, out, _ = await run(tmp_path, "doctor")
    assert code == 0 and "All checks passed." in out
    bad = tmp_path / "bad.toml"
    bad.write_text('[[agents]]\nname = "a"\ntoken_env = "NOPE_TOKEN"\n[telegrm]\nx = 1\n')
    code, out, _ = await run(tmp_path, "doctor", "--config", str(bad))
    assert code == 1 and "NOPE_TOKEN" in out
    code, _, err = await run(tmp_path, "serve", "--config", str(bad))
    assert code == 2 and "NOPE_TOKEN" in err


async def test_blocking_ask_rides_through_a_graceful_restart(tmp_path: Path) -> None:
    from bridge.agent.client import AskClient

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    async with serve(tmp_path, port):
        token = json.loads((tmp_path / ".askbridge" / "credentials.json").read_text())["agent_token"]
        client = AskClient(url, token)
        ask = asyncio.create_task(client.ask({"questions": [{
            "id": "go", "header": "Go", "question": "Ship it?",
            "options": [{"label": "Yes"}, {"label": "No"}]}]}))
        await until(lambda: _listed(url, token), timeout=20, interval=0.1)
    # serve() sent SIGTERM: the question must still be pending, and the ask still waiting.
    assert not ask.done()
    async with serve(tmp_path, port):
        async def replied() -> bool:
            return (await run(tmp_path, "reply", "no", ASKBRIDGE_URL=url))[0] == 0

        await until(replied, timeout=30, interval=0.3)
        result = await asyncio.wait_for(ask, 30)
        assert result.answer_map() == {"go": ["No"]}
    await client.aclose()


async def _listed(url: str, token: str) -> bool:
    async with httpx.AsyncClient(trust_env=False) as http:
        line = await http.get(f"{url}/v1/sessions/main/timeline",
                              headers={"Authorization": f"Bearer {token}"})
        return any(q["status"] == "pending" for q in line.json()["questions"])


def test_version_and_help_for_every_option() -> None:
    from bridge.cli.command import parser
    from bridge.runtime.version import package_version

    root = parser()
    subs = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
    assert {"serve", "ask", "status", "cancel", "mcp", "reply", "doctor"} <= set(subs.choices)
    for name, sub in subs.choices.items():
        for action in sub._actions:
            assert action.help, f"askbridge {name} {action.dest} has no help text"
    with pytest.raises(SystemExit) as exit_:
        root.parse_args(["--version"])
    assert exit_.value.code == 0 and package_version()[0].isdigit()


async def test_no_token_and_no_server_each_say_what_to_do(tmp_path: Path) -> None:
    code, _, err = await run(tmp_path, "ask", "Go?", "-o", "A", "-o", "B")
    assert code == 2 and "No agent token" in err and "ASKBRIDGE_TOKEN" in err
    assert "Traceback" not in err and "reachable" not in err  # not blamed on the server
    url = f"http://127.0.0.1:{free_port()}"
    code, _, err = await run(tmp_path, "ask", "Go?", "-o", "A", "-o", "B",
                             ASKBRIDGE_URL=url, ASKBRIDGE_TOKEN="t")
    assert code == 1 and f"not reachable at {url}" in err and "askbridge serve" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    code, out, err = await run(tmp_path, "mcp")
    assert code == 2 and "No agent token" in err and "Traceback" not in err and out == ""


async def test_serve_refuses_a_busy_port_before_starting_anything(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, out, err = await run(tmp_path, "serve", "--port", str(port))
    assert code == 2 and out == ""
    assert err.strip() == (f"askbridge: port {port} on 127.0.0.1 is already in use (another "
                           "askbridge?); stop that process or choose another port with --port.")
    assert not (tmp_path / ".askbridge").exists()  # nothing was created, nothing started


async def test_serve_rejects_an_unknown_log_level_clearly(tmp_path: Path) -> None:
    code, _, err = await run(tmp_path, "serve", "--log-level", "loud")
    assert code == 2 and "invalid choice: 'loud'" in err and "Traceback" not in err


async def test_serve_with_config_prints_a_banner(tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "askbridge.toml"
    config.write_text(f'data_dir = "{tmp_path / "data"}"\n[[agents]]\nname = "bot"\n'
                      'token_env = "BOT_TOKEN"\n')
    async with serve(tmp_path, port, "--config", str(config), BOT_TOKEN="b",
                     ASKBRIDGE_WEB_TOKEN="webtok") as server:
        server.send_signal(signal.SIGTERM)
        out, _ = await asyncio.wait_for(server.communicate(), 20)
    text = out.decode()
    assert f"askbridge is running with {config}." in text and "bot (main)" in text
    # Piped (a log file, journald): the link names the variable, the secret stays out of logs.
    assert f"http://127.0.0.1:{port}/?token=<value of $ASKBRIDGE_WEB_TOKEN>" in text
    assert "webtok" not in text


def test_the_welcome_shows_the_secrets_only_on_a_terminal(tmp_path: Path) -> None:
    from bridge.cli.command import _welcome
    from bridge.runtime.config import embedded_defaults

    config = embedded_defaults(str(tmp_path / "data"))
    env = {"ASKBRIDGE_TOKEN": "agenttok", "ASKBRIDGE_WEB_TOKEN": "webtok"}
    shown = _welcome(config, env, created=True, reveal=True)
    assert "/?token=webtok" in shown and "token agenttok" in shown
    hidden = _welcome(config, env, created=True, reveal=False)
    assert "webtok" not in hidden and "agenttok" not in hidden
    assert "credentials.json" in hidden


async def test_a_store_path_of_its_own_is_private_too(tmp_path: Path) -> None:
    from tests.harness import make_config, running

    store = tmp_path / "elsewhere" / "db"
    async with running(make_config(tmp_path, store={"path": str(store / "askbridge.db")})) as r:
        async with r.client() as client:
            await client.create({"questions": [{
                "id": "go", "header": "Go", "question": "Ship it?",
                "options": [{"label": "Yes"}, {"label": "No"}]}]})
        assert modes(store) == {".": "700", "askbridge.db": "600", "askbridge.db-wal": "600",
                                "askbridge.db-shm": "600"}


def test_the_banner_shows_the_login_link_on_a_terminal(tmp_path: Path) -> None:
    from bridge.cli.command import _banner
    from bridge.runtime.config import parse_config

    config = parse_config({"agents": [{"name": "bot", "token_env": "B"}]})
    env = {"ASKBRIDGE_WEB_TOKEN": "webtok"}
    assert "http://127.0.0.1:8765/?token=webtok" in _banner(config, env, "c.toml", reveal=True)
    assert "set ASKBRIDGE_WEB_TOKEN to log in" in _banner(config, {}, "c.toml", reveal=True)


async def test_status_and_cancel_by_id(tmp_path: Path) -> None:
    from bridge.agent.client import AskClient

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    async with serve(tmp_path, port):
        token = json.loads((tmp_path / ".askbridge" / "credentials.json").read_text())["agent_token"]
        async with AskClient(url, token) as client:
            qid = (await client.create({"questions": [{
                "id": "go", "header": "Go", "question": "Ship it?",
                "options": [{"label": "Yes"}, {"label": "No"}]}]}))["id"]
        code, out, _ = await run(tmp_path, "status", qid, ASKBRIDGE_URL=url)
        assert code == 0 and json.loads(out)["status"] == "pending"
        code, out, _ = await run(tmp_path, "cancel", qid, ASKBRIDGE_URL=url)
        assert code == 0 and json.loads(out) == {"status": "no_answer", "reason": "cancelled"}
        code, out, _ = await run(tmp_path, "status", qid, ASKBRIDGE_URL=url)
        assert json.loads(out)["status"] == "no_answer" and json.loads(out)["reason"] == "cancelled"
        code, _, err = await run(tmp_path, "status", "q_nope", ASKBRIDGE_URL=url)
        assert code == 2 and "no question" in err.lower()


async def test_ctrl_c_on_a_waiting_ask_cancels_its_question(tmp_path: Path) -> None:
    from bridge.agent.client import AskClient

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    async with serve(tmp_path, port):
        asking = await asyncio.create_subprocess_exec(
            *ASKBRIDGE, "ask", "Go?", "-o", "A", "-o", "B", cwd=tmp_path,
            env=clean_env(ASKBRIDGE_URL=url), stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        assert asking.stderr is not None
        said = (await asyncio.wait_for(asking.stderr.readline(), 30)).decode()
        qid = re.search(r"asked (q_\w+)", said)
        assert qid, said  # the id comes at once, before any answer
        asking.send_signal(signal.SIGINT)
        await asyncio.wait_for(asking.communicate(), 20)
        assert asking.returncode == 3
        token = json.loads((tmp_path / ".askbridge" / "credentials.json").read_text())["agent_token"]
        async with AskClient(url, token) as client:
            view = await client.question(qid.group(1))
        assert (view["status"], view.get("reason")) == ("no_answer", "cancelled")
