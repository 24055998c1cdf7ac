"""A shell's ask never locks its session: every way of stopping it cancels the question and
prints the result; `pending` and `history` show what waits; `reply` says which to answer; the
banner's hints work as printed; every command explains itself."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import signal
from pathlib import Path

import pytest

from tests.bridge.shell import ASKBRIDGE, run, serve
from tests.harness import clean_env, free_port, until


async def started_ask(cwd: Path, *args: str, **env: str) -> tuple[asyncio.subprocess.Process, str]:
    """An `askbridge ask` that has printed its question id (so the question exists)."""
    asking = await asyncio.create_subprocess_exec(
        *ASKBRIDGE, "ask", *args, cwd=cwd, env=clean_env(**env),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert asking.stderr is not None
    said = ""
    while "asked q_" not in said:
        line = (await asyncio.wait_for(asking.stderr.readline(), 30)).decode()
        assert line, said
        said += line
    found = re.search(r"asked (q_\w+)", said)
    assert found, said
    return asking, found.group(1)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
async def test_stopping_a_waiting_ask_cancels_it_and_prints_the_result(
    tmp_path: Path, sig: signal.Signals,
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    async with serve(tmp_path, port):
        asking, qid = await started_ask(tmp_path, "Go?", "-o", "A", "-o", "B", ASKBRIDGE_URL=url)
        asking.send_signal(sig)
        out, _ = await asyncio.wait_for(asking.communicate(), 20)
        assert asking.returncode == 3
        assert json.loads(out) == {"status": "no_answer", "reason": "cancelled"}
        _, status, _ = await run(tmp_path, "status", qid, ASKBRIDGE_URL=url)
        assert json.loads(status)["reason"] == "cancelled"
        # The session is free again at once, not at the deadline.
        again, _ = await started_ask(tmp_path, "Go?", "-o", "C", "-o", "D", ASKBRIDGE_URL=url)
        again.send_signal(signal.SIGINT)
        await asyncio.wait_for(again.communicate(), 20)
        assert again.returncode == 3


async def test_pending_history_and_a_reply_to_one_of_several(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    async with serve(tmp_path, port):
        one, first = await started_ask(tmp_path, "Deploy where?", "-o", "A", "-o", "B",
                                       "--session", "one", ASKBRIDGE_URL=url)
        two, second = await started_ask(tmp_path, "Which region?", "-o", "C", "-o", "D",
                                        "--session", "two", ASKBRIDGE_URL=url)
        code, out, _ = await run(tmp_path, "pending", ASKBRIDGE_URL=url)
        assert code == 0
        lines = out.strip().splitlines()
        assert [line.split()[0] for line in lines] == [second, first]  # newest first
        assert "Which region?" in lines[0] and " two " in lines[0]
        code, _, err = await run(tmp_path, "reply", "1", ASKBRIDGE_URL=url)
        assert code == 2 and "--reply-to" in err and first in err and second in err
        code, _, _ = await run(tmp_path, "reply", "--reply-to", first, "2", ASKBRIDGE_URL=url)
        assert code == 0
        out_one, _ = await asyncio.wait_for(one.communicate(), 20)
        assert json.loads(out_one)["answers"]["answers"]["answer"]["answers"] == ["B"]
        code, out, _ = await run(tmp_path, "history", "--session", "one", ASKBRIDGE_URL=url)
        assert code == 0 and first in out and "answered" in out and "Deploy where?" in out
        code, out, _ = await run(tmp_path, "pending", "--json", ASKBRIDGE_URL=url)
        assert [q["id"] for q in json.loads(out)] == [second]
        two.send_signal(signal.SIGTERM)
        await asyncio.wait_for(two.communicate(), 20)
        code, out, _ = await run(tmp_path, "pending", ASKBRIDGE_URL=url)
        assert code == 0 and out.strip() == "Nothing is waiting for an answer."


async def test_a_reply_nothing_waits_for_is_refused_with_exit_2(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    async with serve(tmp_path, port):
        code, out, _ = await run(tmp_path, "reply", "1", ASKBRIDGE_URL=url)
    assert code == 2 and "No question is waiting" in out
    code, _, err = await run(tmp_path, "reply", "1", ASKBRIDGE_URL=url)  # the server is gone
    assert code == 1 and "not reachable" in err


async def test_the_cli_says_so_when_a_header_is_cut(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    async with serve(tmp_path, port):
        asking = await asyncio.create_subprocess_exec(
            *ASKBRIDGE, "ask", "Go?", "-o", "A", "-o", "B", "--header", "Deployment target",
            cwd=tmp_path, env=clean_env(ASKBRIDGE_URL=url), stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        assert asking.stderr is not None
        said = (await asyncio.wait_for(asking.stderr.readline(), 30)).decode()
        asking.send_signal(signal.SIGINT)
        await asyncio.wait_for(asking.communicate(), 20)
    assert "warning: questions[0].header: Cut to 'Deployment t'" in said


async def test_the_banners_ask_hint_works_as_printed_on_another_port(tmp_path: Path) -> None:
    port = free_port()
    async with serve(tmp_path, port) as server:
        assert server.stdout is not None

        async def hint() -> str | None:
            line = (await asyncio.wait_for(server.stdout.readline(), 30)).decode()  # type: ignore[union-attr]
            return line.split("Ask:", 1)[1].strip() if "Ask:" in line else None

        command = await until(hint, timeout=30, interval=0)
        assert f"--url http://127.0.0.1:{port}" in command
        words = shlex.split(command)
        assert words[0] == "askbridge"
        asking, _ = await started_ask(tmp_path, *words[2:])  # no ASKBRIDGE_URL: as printed
        asking.send_signal(signal.SIGINT)
        await asyncio.wait_for(asking.communicate(), 20)


async def test_every_command_explains_itself(tmp_path: Path) -> None:
    code, out, _ = await run(tmp_path, "--help")
    assert code == 0 and "cli_agent" not in out and "structured questions" in out
    for command in ("serve", "doctor", "reply", "pending", "history"):
        code, out, _ = await run(tmp_path, command, "--help")
        rest = out.partition("\n\n")[2]
        description = rest.split("\n\n")[0]
        assert code == 0 and not description.startswith(("positional", "options")), command


async def test_the_console_prompt_links_to_the_question_in_the_web_ui(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    async with serve(tmp_path, port) as server:
        assert server.stdout is not None
        asking, _ = await started_ask(tmp_path, "Go?", "-o", "A", "-o", "B", "--session",
                                      "release", ASKBRIDGE_URL=url)

        async def link() -> str | None:
            line = (await asyncio.wait_for(server.stdout.readline(), 30)).decode()  # type: ignore[union-attr]
            return line.strip() if line.startswith("Open in the web UI") else None

        shown = await until(link, timeout=30, interval=0)
        asking.send_signal(signal.SIGINT)
        await asyncio.wait_for(asking.communicate(), 20)
    assert shown == f"Open in the web UI: {url}/#main/release"
