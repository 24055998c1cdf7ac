"""The real `askbridge serve` as a child process: a TOML config, SIGKILL, restart, its logs."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx

from tests.harness import (
    AGENT_TOKEN,
    SUB_TOKEN,
    WEB_TOKEN,
    WEBHOOK_SECRET,
    clean_env,
    free_port,
    until,
)

ASKBRIDGE = [sys.executable, "-m", "bridge"]
SECRETS = {"AGENT_TOKEN": AGENT_TOKEN, "SUB_TOKEN": SUB_TOKEN, "ASKBRIDGE_WEB_TOKEN": WEB_TOKEN,
           "HOOK_SECRET": WEBHOOK_SECRET}


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def to_toml(raw: dict[str, Any]) -> str:
    """Just enough TOML for askbridge configs: tables, arrays of tables, nested tables."""
    lines: list[str] = []

    def table(prefix: str, body: dict[str, Any]) -> None:
        scalars = {k: v for k, v in body.items() if not isinstance(v, dict)
                   and not (isinstance(v, list) and v and isinstance(v[0], dict))}
        if prefix:
            lines.append(f"[{prefix}]")
        lines.extend(f"{k} = {toml_value(v)}" for k, v in scalars.items())
        for key, value in body.items():
            name = f"{prefix}.{key}" if prefix else key
            if isinstance(value, dict):
                table(name, value)
            elif isinstance(value, list) and value and isinstance(value[0], dict):
                for item in value:
                    lines.append(f"[[{name}]]")
                    lines.extend(f"{k} = {toml_value(v)}" for k, v in item.items())

    table("", raw)
    return "\n".join(lines) + "\n"


class Server:
    """One `askbridge serve --config F` process at a time; start, kill -9, start again."""

    def __init__(self, tmp: Path, config: dict[str, Any], env: dict[str, str] | None = None,
                 log_level: str = "info") -> None:
        self.tmp = tmp
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.db = tmp / "askbridge.db"
        raw = {"data_dir": str(tmp), "store": {"path": str(self.db)}, **config}
        self.config_file = tmp / "askbridge.toml"
        self.config_file.write_text(to_toml(raw))
        self.env = clean_env(**{**SECRETS, **(env or {})})
        self.log_level = log_level
        self.proc: asyncio.subprocess.Process | None = None
        self.popen: Any = None
        self.starts = 0
        self._logs: list[Path] = []

    async def start(self) -> None:
        self.starts += 1
        out = self.tmp / f"serve-{self.starts}.log"
        self._logs.append(out)
        with out.open("wb") as sink:  # a file, never a pipe nobody reads
            self.proc = await asyncio.create_subprocess_exec(
                *ASKBRIDGE, "serve", "--port", str(self.port), "--config", str(self.config_file),
                "--log-level", self.log_level, cwd=self.tmp, env=self.env,
                stdout=sink, stderr=asyncio.subprocess.STDOUT)

        async def healthy() -> bool:
            assert self.proc is not None
            if self.proc.returncode is not None:
                raise AssertionError(f"askbridge serve exited {self.proc.returncode}:\n"
                                     + self.logs()[-3000:])
            try:
                async with httpx.AsyncClient(trust_env=False) as http:
                    r = await http.get(f"{self.url}/healthz", timeout=2)
                    return r.status_code == 200 and bool(r.json().get("ok"))
            except httpx.HTTPError:
                return False

        await until(healthy, timeout=60, interval=0.05)

    def start_sync(self) -> None:
        """Start without an event loop (module-scoped fixtures, hypothesis tests)."""
        import subprocess
        import time

        self.starts += 1
        out = self.tmp / f"serve-{self.starts}.log"
        self._logs.append(out)
        with out.open("wb") as sink:
            self.popen = subprocess.Popen(
                [*ASKBRIDGE, "serve", "--port", str(self.port), "--config", str(self.config_file),
                 "--log-level", self.log_level], cwd=self.tmp, env=self.env, stdout=sink,
                stderr=subprocess.STDOUT)
        for _ in range(600):
            assert self.popen.poll() is None, self.logs()[-3000:]
            try:
                if httpx.get(f"{self.url}/healthz", trust_env=False, timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError("askbridge serve did not become healthy")

    def stop_sync(self) -> None:
        self.popen.send_signal(signal.SIGTERM)
        try:
            self.popen.wait(20)
        except Exception:
            self.popen.kill()
            self.popen.wait()

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, exactly like a crash or an OOM kill."""
        assert self.proc is not None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)

    async def wait_dead(self) -> None:
        assert self.proc is not None
        await asyncio.wait_for(self.proc.wait(), 20)

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 20)
            except TimeoutError:
                self.proc.send_signal(signal.SIGKILL)
                await self.proc.wait()

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in self._logs if p.exists())

    def http(self, token: str | None = AGENT_TOKEN, timeout: float = 30) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
        return httpx.AsyncClient(base_url=self.url, headers=headers, trust_env=False,
                                 timeout=timeout, limits=limits)

    def sql(self, statement: str, args: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        """Run SQL on the store file (only while the server is down, or for reads)."""
        with sqlite3.connect(self.db) as db:
            rows = db.execute(statement, tuple(args)).fetchall()
            db.commit()
        return rows


async def gather_limited(coros: Iterable[Any], limit: int = 32) -> list[Any]:
    """Run coroutines with at most `limit` in flight; results in order."""
    gate = asyncio.Semaphore(limit)

    async def one(coro: Any) -> Any:
        async with gate:
            return await coro

    return list(await asyncio.gather(*(one(c) for c in coros)))
