"""Run a real bridge (uvicorn + the ASGI app) in the test's event loop on a free port."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bridge.agent.client import AskClient
from bridge.model.adapter import AdapterPlugin
from bridge.runtime.config import BridgeConfig, parse_config
from bridge.runtime.plugins import discover
from bridge.server.composition import Bridge
from bridge.server.serve import BridgeServer

AGENT_TOKEN = "test-agent-token-0123456789"
SUB_TOKEN = "test-subagent-token-0123456789"
WEB_TOKEN = "test-web-token-0123456789"
WEBHOOK_SECRET = "test-webhook-secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def base_env() -> dict[str, str]:
    return {"AGENT_TOKEN": AGENT_TOKEN, "SUB_TOKEN": SUB_TOKEN, "ASKBRIDGE_WEB_TOKEN": WEB_TOKEN,
            "HOOK_SECRET": WEBHOOK_SECRET}


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment for a child `askbridge`, without our ASKBRIDGE_ settings or proxies."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ASKBRIDGE_") and "PROXY" not in k.upper()}
    env.update(extra)
    return env


def make_config(tmp: Path, surfaces: Sequence[str] = ("webhook:sms:+100",),
                **sections: Any) -> BridgeConfig:
    """A config with a main agent (AGENT_TOKEN), a subagent (SUB_TOKEN) and an `sms` webhook."""
    raw: dict[str, Any] = {
        "data_dir": str(tmp),
        "store": {"path": str(tmp / "askbridge.db")},
        "agents": [
            {"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main",
             "surfaces": list(surfaces)},
            {"name": "helper", "token_env": "SUB_TOKEN", "role": "subagent", "surfaces": ["web"]},
        ],
        "webhooks": {"sms": {"secret_env": "HOOK_SECRET", "url": None}},
    }
    raw.update(sections)
    if raw["webhooks"].get("sms", {}).get("url") is None:
        raw["webhooks"]["sms"].pop("url", None)
    return parse_config(raw)


@dataclass
class Running:
    bridge: Bridge
    url: str
    port: int

    def client(self, token: str = AGENT_TOKEN, session: str = "main") -> AskClient:
        return AskClient(self.url, token, session)

    def http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.url, trust_env=False, timeout=30)


@asynccontextmanager
async def running(
    config: BridgeConfig,
    env: dict[str, str] | None = None,
    plugins: Sequence[AdapterPlugin] | None = None,
    **server_options: Any,
) -> AsyncIterator[Running]:
    """Start the bridge like `askbridge serve` does, on 127.0.0.1 and a free port
    (`server_options` go to `BridgeServer`, e.g. a shorter `header_seconds`)."""
    port = free_port()
    config = config.model_copy(update={"server": config.server.model_copy(update={"port": port})})
    bridge = Bridge.build(config, env or base_env(), discover() if plugins is None else plugins)
    server = BridgeServer(bridge, "127.0.0.1", port, **server_options)
    await bridge.start()  # as `serve` does: a refused credential raises here, before listening
    task = asyncio.create_task(server.serve())
    await until(lambda: server.started or task.done(), timeout=15, interval=0.01)
    if task.done():
        task.result()  # it failed to start: raise why
    try:
        yield Running(bridge, f"http://127.0.0.1:{port}", port)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 15)


async def until(predicate: Any, timeout: float = 10.0, interval: float = 0.02) -> Any:
    """Poll an (async or sync) predicate until it returns something truthy; fail on timeout."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        await asyncio.sleep(interval)
