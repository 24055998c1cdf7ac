"""The processes a benchmark runs: the fake Bot API, the relay, `askbridge serve`; each on 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

AGENT_TOKEN = "bench-agent-token-0123456789abcdef"
CHAT_ID = 777
ROOT = Path(__file__).resolve().parent.parent
TOKENS = {"askbridge": "111:bench-askbridge", "relay": "222:bench-relay",
          "bare": "333:bench-bare", "scale": "444:bench-scale",
          "fanout": "555:bench-fanout", "replicas": "666:bench-replicas",
          "durable": "888:bench-durable"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bench_env(**extra: str) -> dict[str, str]:
    """The environment without proxies: httpx would send even 127.0.0.1 through one."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update(extra)
    return env


def rss_mb(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) of a process in MB, from /proc."""
    values: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Proc:
    name: str
    argv: list[str]
    port: int
    log: Path
    env: dict[str, str] = field(default_factory=bench_env)
    popen: asyncio.subprocess.Process | None = None
    started_at: float = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    async def spawn(self) -> None:
        self.started_at = time.monotonic()
        out = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            self.popen = await asyncio.create_subprocess_exec(
                *self.argv, stdout=out, stderr=subprocess.STDOUT, env=self.env, cwd=ROOT)
        finally:
            os.close(out)

    async def ready(self, http: aiohttp.ClientSession, path: str, timeout: float = 30.0) -> float:
        """Seconds from spawn until `path` answers 200 (polled every 5 ms)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.popen is not None
            if self.popen.returncode is not None:
                raise RuntimeError(f"{self.name} exited with {self.popen.returncode}; see {self.log}")
            try:
                async with http.get(self.url + path) as response:
                    if response.status == 200:
                        return time.monotonic() - self.started_at
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.005)
        raise RuntimeError(f"{self.name} was not ready within {timeout} s; see {self.log}")

    async def stop(self, timeout: float = 15.0) -> float:
        """SIGTERM, then wait (bounded); SIGKILL if it will not go. Seconds it took."""
        if self.popen is None or self.popen.returncode is not None:
            return 0.0
        began = time.monotonic()
        self.popen.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.popen.wait(), timeout)
        except TimeoutError:
            self.popen.kill()
            await asyncio.wait_for(self.popen.wait(), 5)
        return time.monotonic() - began


def fake_proc(tmp: Path, limits: bool = False) -> Proc:
    port = free_port()
    return Proc("fake Bot API", [sys.executable, "-m", "bench.fakebot", "--port", str(port),
                                 *(["--limits"] if limits else [])],
                port, tmp / ("fakebot-limits.log" if limits else "fakebot.log"))


def relay_proc(tmp: Path, fake_url: str, durable: bool = False) -> Proc:
    """The do-nothing relay; `durable`: it commits each question to SQLite before sending."""
    port = free_port()
    name = "durable" if durable else "relay"
    if durable:
        (tmp / name).mkdir(parents=True, exist_ok=True)
    db = ["--db", str(tmp / name / "relay.db")] if durable else []
    return Proc(name, [sys.executable, "-m", "bench.relay", "--port", str(port),
                       "--base-url", fake_url + "/bot", "--token", TOKENS[name],
                       "--chat", str(CHAT_ID), *db], port, tmp / f"{name}.log")


def askbridge_proc(tmp: Path, fake_url: str, token: str, name: str = "askbridge",
                   profile: Path | None = None, agent_extra: str = "", *,
                   surfaces: tuple[str, ...] = (f"telegram:{CHAT_ID}",), extra: str = "",
                   store_url: str | None = None, web: bool = False, pace: bool = False) -> Proc:
    """`askbridge serve --config` with a Telegram surface pointed at the fake; `agent_extra`
    is TOML appended to the agent's table (reminders, escalation tiers), `extra` more sections
    (Slack, webhooks); `store_url` a PostgreSQL store instead of SQLite. `pace`: keep under
    Telegram's flood limits (off, as bare PTB and the relay are, except for the burst run)."""
    port = free_port()
    data = tmp / name
    data.mkdir(parents=True, exist_ok=True)
    config = data / "askbridge.toml"
    store = f'url = "{store_url}"' if store_url else f'path = "{data / "askbridge.db"}"'
    listed = ", ".join(f'"{s}"' for s in surfaces)
    config.write_text(f"""\
data_dir = "{data}"

[server]
host = "127.0.0.1"
port = {port}

[store]
{store}

[web]
enabled = {"true" if web else "false"}

[[agents]]
name = "bench"
token_env = "BENCH_AGENT_TOKEN"
role = "main"
surfaces = [{listed}]
{agent_extra}
[telegram]
token_env = "BENCH_TELEGRAM_TOKEN"
base_url = "{fake_url}/bot"
poll_timeout = 5
pace = {"true" if pace else "false"}
{extra}""")
    prefix = [sys.executable, "-m", "bridge"]
    if profile is not None:
        prefix = [sys.executable, "-m", "bench.profiled", str(profile)]
    env = bench_env(BENCH_AGENT_TOKEN=AGENT_TOKEN, BENCH_TELEGRAM_TOKEN=token,
                    ASKBRIDGE_WEB_TOKEN="bench-web-token-0123456789abcdef",
                    BENCH_SLACK_BOT="xoxb-bench", BENCH_SLACK_SECRET="bench-slack-secret",
                    BENCH_HOOK_SECRET="bench-hook-secret-0123456789")
    return Proc(name, [*prefix, "serve", "--config", str(config)], port,
                data / "serve.log", env)
