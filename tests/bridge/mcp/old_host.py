"""Hosts on the official MCP SDK 1.x (2025-11-25 only), as many are in the field: the product
needs SDK 2.x, so the 1.x client lives in a venv of its own (`.venv/mcp1`, made once and kept;
`.ci/run` makes it ahead) and runs `old_host_driver.py` in a process of its own, driven here by
JSON lines."""

from __future__ import annotations

import asyncio
import fcntl
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[3]
VENV = ROOT / ".venv" / "mcp1"
DRIVER = Path(__file__).with_name("old_host_driver.py")
SPEC = "mcp>=1.20,<2"


def old_sdk_python() -> Path:
    """The 1.x venv's Python, made on first use (under a lock: test workers share it)."""
    python = VENV / "bin" / "python"
    VENV.parent.mkdir(exist_ok=True)
    with open(VENV.parent / "mcp1.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (VENV / "ready").exists():
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True)
            subprocess.run([str(python), "-m", "pip", "install", "-q",
                            "--disable-pip-version-check", SPEC], check=True)
            (VENV / "ready").write_text(SPEC)
    return python


class OldHost:
    """One 1.x host process: what it says arrives as events, read in order."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.ready: dict[str, Any] = {}
        self._held: list[dict[str, Any]] = []

    async def send(self, **command: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(command) + "\n").encode())
        await self.proc.stdin.drain()

    async def _next(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"the 1.x host ended (exit {await self.proc.wait()})")
            if line.startswith(b"{"):
                event: dict[str, Any] = json.loads(line)
                return event

    async def expect(self, kind: str, tag: str | None = None, timeout: float = 60) -> dict[str, Any]:
        """The next event of `kind` (for call `tag`); others are kept for later."""
        for held in self._held:
            if held["event"] == kind and (tag is None or held.get("tag") == tag):
                self._held.remove(held)
                return held

        async def find() -> dict[str, Any]:
            while True:
                event = await self._next()
                if event["event"] == kind and (tag is None or event.get("tag") == tag):
                    return event
                self._held.append(event)

        return await asyncio.wait_for(find(), timeout)

    async def kill(self) -> None:
        """The host dies (SIGKILL): its pipes close, nothing is said."""
        self.proc.kill()
        await self.proc.wait()

    def seen(self, kind: str, tag: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self._held if e["event"] == kind and (tag is None or e.get("tag") == tag)]

    async def tools(self) -> list[dict[str, Any]]:
        await self.send(op="list")
        tools: list[dict[str, Any]] = (await self.expect("tools"))["tools"]
        return tools

    async def call(self, args: dict[str, Any], tag: str = "c", timeout: float | None = None,
                   name: str = "ask_user") -> None:
        await self.send(op="call", tag=tag, name=name, args=args, timeout=timeout)

    async def result(self, tag: str = "c", timeout: float = 60) -> dict[str, Any]:
        found: dict[str, Any] = (await self.expect("result", tag, timeout))["result"]
        return found


@asynccontextmanager
async def old_host(transport: str = "http", *, url: str = "", token: str = "",
                   session: str | None = None, elicit: bool = False, terminate: bool = True,
                   env: dict[str, str] | None = None) -> AsyncIterator[OldHost]:
    """A 1.x host connected over `transport` (`http` to `url`, or `stdio` running
    `askbridge mcp` with `env`), initialized; closed (DELETE over HTTP) on the way out."""
    config: dict[str, Any] = {"transport": transport, "url": url, "token": token,
                              "session": session, "elicit": elicit, "terminate": terminate}
    if transport == "stdio":
        config |= {"command": sys.executable, "args": ["-m", "bridge", "mcp"],
                   "env": {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), **(env or {})}}
    python = await asyncio.to_thread(old_sdk_python)
    proc = await asyncio.create_subprocess_exec(
        str(python), str(DRIVER), json.dumps(config), stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, cwd=ROOT)
    host = OldHost(proc)
    try:
        host.ready = await host.expect("ready")
        yield host
        if proc.returncode is None:
            await host.send(op="close")
            await host.expect("closed", timeout=30)
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()
