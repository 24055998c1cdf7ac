"""The real `askbridge` as child processes: `serve` until healthy, and one command run to its end."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from tests.harness import clean_env, until

ASKBRIDGE = [sys.executable, "-m", "bridge"]


@asynccontextmanager
async def serve(cwd: Path, port: int, *args: str,
                **env: str) -> AsyncIterator[asyncio.subprocess.Process]:
    proc = await asyncio.create_subprocess_exec(
        *ASKBRIDGE, "serve", "--port", str(port), *args, cwd=cwd, env=clean_env(**env),
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
