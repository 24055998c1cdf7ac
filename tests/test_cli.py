"""The real `askbridge` processes: serve on embedded defaults, ask from a shell, reply, doctor."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from tests.harness import free_port, until

ASKBRIDGE = [sys.executable, "-m", "bridge"]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ASKBRIDGE_") and "PROXY" not in k.upper()}
    env.update(extra)
    return env


@asynccontextmanager
async def serve(cwd: Path, port: int, *args: str) -> AsyncIterator[asyncio.subprocess.Process]:
    proc = await asyncio.create_subprocess_exec(
        *ASKBRIDGE, "serve", "--port", str(port), *args, cwd=cwd, env=clean_env(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)

    async def healthy() -> bool:
        try:
            async with httpx.AsyncClient(trust_env=False) as http:
                return (await http.get(f"http://127.0.0.1:{port}/healthz")).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        await until(healthy, timeout=30, interval=0.1)
        yield proc
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 20)


async def run(cwd: Path, *args: str, **env: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        *ASKBRIDGE, *args, cwd=cwd, env=clean_env(**env),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


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
        assert json.loads(out) == {"status": "answered", "answers": {"answers": {
            "deploy_target": {"answers": ["Production"]}}}}
        server.send_signal(signal.SIGTERM)
        stdout, stderr = await asyncio.wait_for(server.communicate(), 20)
    text = stdout.decode()
    assert f"{url}/?token={creds['web_token']}" in text
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
    from bridge.client import AskClient

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
