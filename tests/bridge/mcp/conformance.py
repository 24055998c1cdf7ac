"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, npm) against /mcp.

`.ci/run` installs Node 22 (the npm package `node`) and the suite's releases into `.node/`,
beside `.venv/`: 0.1.x speaks 2025-11-25 only, the 0.2.0 pre-releases add 2026-07-28. The
suite's CLI sends no custom headers, so an authenticating proxy stands in front of the bridge:
it adds the agent's bearer token and passes everything else (`Host`, `Origin`) through
untouched, so the DNS-rebinding scenario reaches /mcp with its foreign names.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

ROOT = Path(__file__).resolve().parents[3]
NODE_DIR = ROOT / ".node"
NODE = NODE_DIR / "node_modules" / ".bin" / "node"
SWITCH = "ASKBRIDGE_TEST_CONFORMANCE"
"""`off` skips the conformance tests knowingly (while iterating); CI never sets it."""
SUITES = {"2025-11-25": "conformance-2025", "2026-07-28": "conformance-2026"}
"""The npm alias (see .ci/run) of the suite release that runs each revision."""
HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
                 "proxy-authorization", "proxy-connection", "content-length"})


def cli(revision: str) -> Path:
    return NODE_DIR / "node_modules" / SUITES[revision] / "dist" / "index.js"


def missing(revision: str) -> str | None:
    """Why the suite cannot run here, or None."""
    if not NODE.exists() or not cli(revision).exists():
        return (f"Node 22 or the conformance suite is missing under {NODE_DIR}: run "
                f"`bash .ci/run` once (it installs them), or set {SWITCH}=off to skip knowingly.")
    return None


@asynccontextmanager
async def bearer_proxy(port: int, target: str, token: str) -> AsyncIterator[str]:
    """An HTTP proxy on 127.0.0.1:`port` that adds `Authorization: Bearer <token>` and forwards
    every request to `target` with its own Host, Origin and body, streaming the answer back.
    The proxy is then the server's public face: list its origin in `[mcp] allowed_origins`."""
    session = aiohttp.ClientSession(auto_decompress=False, timeout=aiohttp.ClientTimeout(None))

    async def forward(request: web.Request) -> web.StreamResponse:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP}
        headers["Authorization"] = f"Bearer {token}"
        body = await request.read()
        async with session.request(request.method, target + request.rel_url.path_qs,
                                   headers=headers, data=body or None,
                                   allow_redirects=False) as upstream:
            answer = web.StreamResponse(status=upstream.status, headers={
                k: v for k, v in upstream.headers.items() if k.lower() not in HOP})
            await answer.prepare(request)
            try:
                async for chunk in upstream.content.iter_any():
                    await answer.write(chunk)
                await answer.write_eof()
            except ConnectionResetError:  # the suite hung up first (aiohttp's is a subclass)
                pass
            return answer

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", forward)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()
        await session.close()


@dataclass
class Outcome:
    scenario: str
    passed: int
    failed: dict[str, str]
    """check id → the suite's reason."""
    skipped: list[str]
    """Checks the suite itself skipped (a feature the server does not offer)."""


async def run_suite(revision: str, url: str, scenarios: list[str], out: Path) -> dict[str, Outcome]:
    """Run each scenario of `revision` against `url`, side by side; what each passed and failed."""
    for scenario in scenarios:
        (out / scenario).mkdir(parents=True)
    done = await asyncio.gather(*(_scenario(revision, url, s, out / s) for s in scenarios))
    return {o.scenario: o for o in done}


def _checks(folder: Path) -> list[dict[str, Any]]:
    return [c for p in folder.rglob("checks.json") for c in json.loads(p.read_text())]


async def _scenario(revision: str, url: str, scenario: str, folder: Path) -> Outcome:
    args = [str(NODE), str(cli(revision)), "server", "--url", url, "--scenario", scenario,
            "-o", str(folder)]
    if revision != "2025-11-25":
        args += ["--spec-version", revision]
    process = await asyncio.create_subprocess_exec(
        *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        env={k: v for k, v in os.environ.items() if "PROXY" not in k.upper()})
    output, _ = await asyncio.wait_for(process.communicate(), 120)
    checks = _checks(folder)  # written once the process has ended
    failed = {c["id"]: c.get("errorMessage") or c["status"] for c in checks
              if c["status"] not in ("SUCCESS", "INFO", "SKIPPED")}
    skipped = [c["id"] for c in checks if c["status"] == "SKIPPED"]
    if not checks:
        failed = {"none": f"no checks written: {output.decode(errors='replace')[-800:]}"}
    return Outcome(scenario, len(checks) - len(failed) - len(skipped), failed, skipped)
