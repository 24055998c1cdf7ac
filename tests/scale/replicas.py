"""Real `askbridge serve` replicas on one PostgreSQL database, with their output collected."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bridge import SIGNATURE_HEADER, sign
from tests.fakes.telegram import TOKEN
from tests.harness import AGENT_TOKEN, WEBHOOK_SECRET, clean_env, free_port, until


@dataclass
class Replica:
    name: str
    config: Path
    env: dict[str, str]
    port: int = field(default_factory=free_port)
    proc: asyncio.subprocess.Process | None = None
    out: list[str] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)
    _readers: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bridge", "serve", "--config", str(self.config),
            "--port", str(self.port), env=clean_env(**self.env),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._readers = [asyncio.create_task(self._read(self.proc.stdout, self._on_out)),
                         asyncio.create_task(self._read(self.proc.stderr, self._on_log))]
        await until(self._healthy, timeout=40, interval=0.1)

    async def _healthy(self) -> bool:
        if self.proc is not None and self.proc.returncode is not None:
            raise AssertionError(f"{self.name} exited: {self.logs[-5:]}")
        try:
            async with httpx.AsyncClient(trust_env=False) as http:
                return (await http.get(f"{self.url}/healthz")).status_code == 200
        except httpx.HTTPError:
            return False

    @staticmethod
    async def _read(stream: asyncio.StreamReader, sink: Any) -> None:
        while line := await stream.readline():
            sink(line.decode(errors="replace").rstrip("\n"))

    def _on_out(self, line: str) -> None:
        self.out.append(line)

    def _on_log(self, line: str) -> None:
        try:
            self.logs.append(json.loads(line))
        except ValueError:
            self.logs.append({"event": "raw", "line": line})

    def logged(self, event: str) -> list[dict[str, Any]]:
        return [entry for entry in self.logs if entry.get("event") == event]

    async def kill(self) -> None:
        """SIGKILL: no goodbye, no cleanup — the database sees the connections drop."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(self.proc.wait(), 10)
        await asyncio.gather(*self._readers, return_exceptions=True)

    async def stop(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), 20)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        await asyncio.gather(*self._readers, return_exceptions=True)


ENV = {"AGENT_TOKEN": AGENT_TOKEN, "HOOK_SECRET": WEBHOOK_SECRET, "TELEGRAM_BOT_TOKEN": TOKEN}


def write_config(tmp: Path, url: str, surfaces: list[str], telegram: str | None) -> Path:
    lines = [
        "[store]", f'url = "{url}"', "[web]", "enabled = false",
        "[[agents]]", 'name = "assistant"', 'token_env = "AGENT_TOKEN"', 'role = "main"',
        f"surfaces = {json.dumps(surfaces)}",
        "[webhooks.sms]", 'secret_env = "HOOK_SECRET"',
    ]
    if telegram:
        lines += ["[telegram]", 'token_env = "TELEGRAM_BOT_TOKEN"', f'base_url = "{telegram}"',
                  "poll_timeout = 1", "retry_base_seconds = 0.05",
                  "pace = false"]  # hundreds of prompts to one chat: pacing is tested elsewhere
    path = tmp / "askbridge.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


@asynccontextmanager
async def replicas(config: Path, count: int = 3) -> AsyncIterator[list[Replica]]:
    group = [Replica(chr(ord("A") + i), config, ENV) for i in range(count)]
    try:
        for replica in group:  # one after another: the first to start takes the lead
            await replica.start()
        yield group
    finally:
        await asyncio.gather(*(r.stop() for r in group))


async def reply(http: httpx.AsyncClient, replica: Replica, text: str,
                reply_to: str | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {"conversation": "+100", "sender": "+100", "text": text}
    if reply_to:
        payload["replyTo"] = reply_to
    body = json.dumps(payload).encode()
    response = await http.post(f"{replica.url}/v1/channels/webhook/sms", content=body,
                               headers={SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body)})
    assert response.status_code == 200, response.text
    return dict(response.json())
