"""Slow clients: a header deadline, a connection cap that evicts the oldest one still waiting
for headers, /healthz answering throughout, and one warning a minute when out of descriptors."""

from __future__ import annotations

import asyncio
import errno
import resource
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
from structlog.testing import capture_logs

from bridge.server.connections import (
    OWN_DESCRIPTORS,
    Guard,
    accept_burst,
    connection_cap,
    descriptor_reserve,
)
from tests.harness import clean_env, free_port, make_config, running, until
from tests.reliability.server import ASKBRIDGE, SECRETS, to_toml

Slow = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def slow_client(port: int) -> Slow:
    """A client that sends a request line and one header, and then nothing more for now."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    await writer.drain()
    return reader, writer


async def trickle(clients: list[Slow], every: float) -> None:
    """One more header line on every open client, every `every` seconds (a slowloris)."""
    while True:
        await asyncio.sleep(every)  # the attack's own pace, not a wait for the server
        for reader, writer in clients:
            if not reader.at_eof() and not writer.is_closing():
                writer.write(b"X-Slow: 1\r\n")


@asynccontextmanager
async def slow_flood(port: int, count: int, every: float = 0.5) -> AsyncIterator[list[Slow]]:
    clients = [await slow_client(port) for _ in range(count)]
    pace = asyncio.create_task(trickle(clients, every))
    try:
        yield clients
    finally:
        pace.cancel()
        for _, writer in clients:
            writer.close()


def closed(clients: list[Slow]) -> int:
    return sum(reader.at_eof() for reader, _ in clients)


async def healthy(url: str, times: int = 5) -> None:
    """/healthz answers each time, on a new connection each time."""
    for _ in range(times):
        async with httpx.AsyncClient(trust_env=False, timeout=10) as http:
            assert (await http.get(f"{url}/healthz")).status_code == 200


async def test_headers_that_trickle_in_past_the_deadline_close_the_connection(
        tmp_path: Path) -> None:
    async with running(make_config(tmp_path), header_seconds=0.5) as r, \
            slow_flood(r.port, 20, every=0.1) as clients:
        silent = await asyncio.open_connection("127.0.0.1", r.port)  # sends nothing at all
        await until(lambda: closed(clients) == len(clients) and silent[0].at_eof())
        await healthy(r.url)


async def test_at_the_cap_the_oldest_slow_client_makes_room(tmp_path: Path) -> None:
    config = make_config(tmp_path, server={"max_connections": 20})
    async with running(config) as r, slow_flood(r.port, 60) as clients:
        await until(lambda: closed(clients) >= 40)  # at most 20 open at once
        assert all(reader.at_eof() for reader, _ in clients[:40])  # the oldest went first
        await healthy(r.url)


def test_running_out_of_descriptors_is_one_warning_a_minute() -> None:
    guard = Guard(10)
    loop = asyncio.new_event_loop()
    try:
        with capture_logs() as said:
            for _ in range(1000):
                guard.handle_loop_error(loop, {
                    "message": "socket.accept() out of system resource",
                    "exception": OSError(errno.EMFILE, "Too many open files")})
    finally:
        loop.close()
    assert [e["event"] for e in said] == ["out_of_file_descriptors"]


def test_the_cap_and_the_accept_burst_fit_in_the_descriptor_limit() -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    cap = connection_cap(10**9)
    assert cap == soft - descriptor_reserve(soft)
    assert connection_cap(5) == 5
    assert cap + 3 * accept_burst(cap) + OWN_DESCRIPTORS <= soft


async def test_under_ulimit_256_with_300_slow_sockets_healthz_answers(tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "askbridge.toml"
    config.write_text(to_toml({
        "data_dir": str(tmp_path), "store": {"path": str(tmp_path / "askbridge.db")},
        "agents": [{"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main",
                    "surfaces": ["web"]}]}))
    log = tmp_path / "serve.log"

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    with log.open("wb") as sink:
        proc = await asyncio.create_subprocess_exec(
            *ASKBRIDGE, "serve", "--port", str(port), "--config", str(config),
            cwd=tmp_path, env=clean_env(**SECRETS), stdout=sink, stderr=sink,
            preexec_fn=limited)
    url = f"http://127.0.0.1:{port}"
    try:
        async def up() -> bool:
            try:
                await healthy(url, times=1)
                return True
            except httpx.HTTPError:
                return False

        await until(up, timeout=60, interval=0.1)
        async with slow_flood(port, 300) as clients:
            await until(lambda: closed(clients) >= 300 - (256 - descriptor_reserve(256)))
            await healthy(url)
    finally:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 20)
    text = log.read_text(errors="replace")
    assert "Traceback" not in text and "Errno 24" not in text, text[-3000:]
    assert text.count("out_of_file_descriptors") <= 1
