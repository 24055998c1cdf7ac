"""A real `askbridge serve` started once to see how it begins: exits saying why, or listens."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.harness import until
from tests.reliability.server import ASKBRIDGE, Server

BANNER = "askbridge is running"


@dataclass(frozen=True)
class Start:
    """How one start went: the exit code (None while it serves), everything it printed, and
    its log lines (stderr) alone."""

    returncode: int | None
    output: str
    logs: str


async def start(tmp: Path, config: dict[str, Any], env: dict[str, str]) -> Start:
    """Start `serve` and wait until it either exits or answers /healthz; stop it after."""
    server = Server(tmp, config, env)
    out, err = tmp / "serve.out", tmp / "serve.err"
    with out.open("wb") as sink, err.open("wb") as logs:
        proc = await asyncio.create_subprocess_exec(
            *ASKBRIDGE, "serve", "--port", str(server.port), "--config",
            str(server.config_file), cwd=tmp, env=server.env, stdout=sink, stderr=logs)

    async def settled() -> bool:
        if proc.returncode is not None:
            return True
        try:
            async with httpx.AsyncClient(trust_env=False) as http:
                return (await http.get(f"{server.url}/healthz", timeout=2)).status_code == 200
        except httpx.HTTPError:
            return False

    async def banner_then_listening() -> bool:
        """Once the banner is out, the port must already answer: never a banner first."""
        if BANNER not in out.read_text(errors="replace"):
            return False
        async with httpx.AsyncClient(trust_env=False) as http:
            await http.get(f"{server.url}/healthz", timeout=5)  # raises if nothing listens
        return True

    try:
        await until(settled, timeout=60, interval=0.05)
        code = proc.returncode
        if code is None:
            await until(banner_then_listening, timeout=30, interval=0.01)
    finally:
        if proc.returncode is None:
            proc.terminate()
            await asyncio.wait_for(proc.wait(), 30)
    logged = err.read_text(errors="replace")
    return Start(code, out.read_text(errors="replace") + logged, logged)


def unused_url(port: int, path: str = "") -> str:
    """An address where nothing listens (the port was free a moment ago)."""
    return f"http://127.0.0.1:{port}{path}"
