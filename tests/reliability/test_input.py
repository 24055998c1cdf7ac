"""Bad input against the real server: 10,000 generated tool calls, fuzzed replies, malformed
platform payloads, oversized bodies and slow clients."""

from __future__ import annotations

import asyncio
import json
import random
import string
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.model.validation import InvalidRequest, parse_ask_request
from tests.harness import AGENT_TOKEN, until
from tests.reliability.figures import Figures
from tests.reliability.platforms import (
    CHAT,
    ENV,
    TG_SECRET,
    discord_click,
    platforms,
    post_slack,
    post_telegram,
    slack_click,
    telegram_tap,
)
from tests.reliability.server import Server, gather_limited
from tests.reliability.support import create, delivered, ended, question, record, reply

BATCH = 100
BATCHES = 100  # 10,000 tool calls
_TALLY: Counter[str] = Counter()

# -- generated tool calls --------------------------------------------------------------------

VALUES: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from(["", " ", "Other", "other…", "Something else", "lainnya", "Prod (Recommended)",
                     "Production", "a" * 65, "b" * 501, "x" * 201, "Ünïcødé 🙂", "1", "-", None,
                     True, False, 0, 12.5, -1, 29, 30, 3600, 3601, [], {}, "12"]),
    st.text(max_size=12), st.integers(-5, 5000))
PATHS = [("timeoutSeconds",), ("questions",), ("questions", 0), ("questions", 0, "id"),
         ("questions", 0, "header"), ("questions", 0, "question"), ("questions", 0, "options"),
         ("questions", 0, "multiSelect"), ("questions", 0, "options", 0, "label"),
         ("questions", 0, "options", 1, "label"), ("questions", 0, "options", 0, "description"),
         ("questions", 1, "id"), ("questions", 1, "options", 2, "label"), ("unknown",),
         ("questions", 0, "unknown")]


def _base(n: int) -> dict[str, Any]:
    one = {"id": "target", "header": "Deploy", "question": "Where should I deploy?",
           "options": [{"label": "Staging (Recommended)", "description": "safe"},
                       {"label": "Production"}, {"label": "Canary"}]}
    two = {"id": "steps", "header": "Steps", "question": "Which steps?", "multiSelect": True,
           "options": [{"label": "Lint"}, {"label": "Test"}, {"label": "Build"}]}
    return {"questions": [one, two][: n + 1], "timeoutSeconds": 60}


def _mutate(n: int, edits: list[tuple[tuple[Any, ...], str, Any]]) -> Any:
    body: Any = _base(n)
    for path, op, value in edits:
        target = body
        try:
            for key in path[:-1]:
                target = target[key]
            if op == "del":
                del target[path[-1]]
            elif op == "dup" and isinstance(target[path[-1]], list):
                target[path[-1]].append(target[path[-1]][0])
            else:
                target[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            pass  # an edit that no longer applies: the body stays as it is
    return body


requests = st.one_of(
    st.builds(_mutate, st.integers(0, 1), st.lists(st.tuples(
        st.sampled_from(PATHS), st.sampled_from(["set", "set", "del", "dup"]), VALUES),
        max_size=3)),
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=6),
                 lambda inner: st.lists(inner, max_size=3)
                 | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6))


def _expected_ok(body: Any) -> bool:
    try:
        parse_ask_request(body)
    except InvalidRequest:
        return False
    return True


async def _send(url: str, bodies: list[Any], first: int) -> list[tuple[Any, Any]]:
    """aiohttp here: httpx's per-request cost would dominate 10,000 calls on two cores."""
    import aiohttp

    headers = {"Authorization": f"Bearer {AGENT_TOKEN}", "content-type": "application/json"}
    async with aiohttp.ClientSession(url, headers=headers) as http:
        async def one(n: int, body: Any) -> tuple[Any, Any]:
            raw = json.dumps(body, allow_nan=True).encode()
            async with http.post(f"/v1/sessions/h{first + n}/questions", data=raw) as r:
                return body, _Answer(r.status, await r.text())
        return await gather_limited((one(n, b) for n, b in enumerate(bodies)), limit=16)


class _Answer:
    def __init__(self, status_code: int, text: str) -> None:
        self.status_code = status_code
        self.text = text

    def json(self) -> Any:
        return json.loads(self.text)


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("fuzz"), {"agents": [
        {"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main", "surfaces": ["web"]}]})
    server.start_sync()
    yield server
    server.stop_sync()


_QUEUE: list[Any] = []


def _flush(url: str) -> None:
    """Send the queued calls, 16 at a time, and check every answer."""
    bodies, _QUEUE[:] = list(_QUEUE), []
    first = _TALLY["sent"]
    _TALLY["sent"] += len(bodies)
    for body, r in asyncio.run(_send(url, bodies, first)):
        _TALLY[str(r.status_code)] += 1
        assert r.status_code in (202, 422), (r.status_code, r.text, body)
        assert (r.status_code == 202) == _expected_ok(body), (r.text, body)
        if r.status_code == 422:
            data = r.json()
            assert data["error"] == "invalid_request" and data["details"], data
            for d in data["details"]:
                assert isinstance(d["loc"], str) and d["loc"], d
                assert isinstance(d["msg"], str) and len(d["msg"]) > 8, d


GENERATED = pytest.mark.xdist_group("generated_tool_calls")
"""The calls and their figures on one worker: the tally and the queue live in the process."""


@GENERATED
@settings(max_examples=BATCHES * 4, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(st.lists(requests, min_size=BATCH // 4, max_size=BATCH // 4))
def test_10000_generated_tool_calls_are_valid_or_422(web_server: Server, bodies: list[Any]) -> None:
    """Generated calls are queued; every 100 are sent concurrently and each answer checked."""
    _QUEUE.extend(bodies)
    if len(_QUEUE) >= BATCH:
        _flush(web_server.url)


@GENERATED
def test_generated_tool_calls_figures(web_server: Server, figures: Figures) -> None:
    """Runs after the generated calls (file order, same worker): their tally, and the server
    still well."""
    if _QUEUE:
        _flush(web_server.url)
    assert _TALLY["sent"] >= BATCHES * BATCH * 9 // 10, f"only {_TALLY['sent']} calls were sent"
    r = httpx.get(f"{web_server.url}/healthz", trust_env=False)
    assert r.status_code == 200
    assert "Traceback" not in web_server.logs()
    figures.add("input: generated tool calls (HTTP)", calls=_TALLY["sent"],
                accepted_202=_TALLY["202"], refused_422=_TALLY["422"],
                other_status=_TALLY["sent"] - _TALLY["202"] - _TALLY["422"], server_errors=0)


# -- fuzzed replies and malformed platform payloads ------------------------------------------

def _junk(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 3 else 4)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False, 0, -1, 2**63, 1.5, 2**70])
    if kind in (2, 3):
        return "".join(rng.choice(string.printable + "ẞ🙂\u200b\x00")
                       for _ in range(rng.randrange(0, 40)))
    if kind == 4:
        return [_junk(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    return {rng.choice(["update_id", "callback_query", "message", "data", "from", "chat", "id",
                        "text", "type", "user", "actions", "channel", "view", "event",
                        "custom_id", "reply_to_message", "x"]): _junk(rng, depth + 1)
            for _ in range(rng.randrange(0, 5))}


def _fuzz_texts(rng: random.Random, n: int) -> list[str]:
    pieces = ["1", "2", "3", "7", "skip", "/skip", "1,3", "1 and 3", "1: 2", "env: production",
              "14:30", "C:\\x\\y", "https://a.b/c", "🙂", "\x00", "\u202e", " ", "\n", ":", ","]
    out = []
    for _ in range(n):
        parts = [rng.choice(pieces) if rng.random() < 0.6 else
                 "".join(rng.choice(string.printable) for _ in range(rng.randrange(1, 30)))
                 for _ in range(rng.randrange(1, 6))]
        out.append(rng.choice([" ", "\n", ""]).join(parts)[:8000])
    return out


TWO = {"questions": [
    {"id": "env", "header": "Env", "question": "Which environment?",
     "options": [{"label": "Staging"}, {"label": "Production"}]},
    {"id": "steps", "header": "Steps", "question": "Which steps?", "multiSelect": True,
     "options": [{"label": "Lint"}, {"label": "Test"}, {"label": "Build"}]}]}


async def test_fuzzed_replies_and_malformed_payloads_never_crash(tmp_path: Path,
                                                                  figures: Figures) -> None:
    rng = random.Random(5)
    surfaces = [f"telegram:{CHAT['id']}", "slack:C0123", "discord:3001", "webhook:sms:+100"]
    statuses: Counter[int] = Counter()
    async with platforms(tmp_path, surfaces) as p, p.server.http(ENV["MULTI_TOKEN"]) as http:
        # 600 fuzzed reply texts on the webhook channel against multi-question prompts.
        session = 0
        current = (await create(http, f"fz-{session}", TWO))["id"]
        texts = _fuzz_texts(rng, 600)
        accepted = 0
        for n, text in enumerate(texts):
            target = rng.choice([current, None, "q_nonexistent00000", "x" * 300])
            r = await reply(http, text, target)
            statuses[r.status_code] += 1
            assert r.status_code in (200, 422), (r.status_code, r.text, text)
            if r.status_code == 200 and r.json()["accepted"]:
                accepted += 1
                view = await record(http, current)
                if view["status"] != "pending":
                    session += 1
                    current = (await create(http, f"fz-{session}", TWO))["id"]
            assert n % 100 or (await http.get("/healthz")).status_code == 200
        # 300 malformed platform payloads per HTTP platform, 100 gateway events for Discord.
        for _ in range(300):
            junk = json.dumps(_junk(rng)).encode()
            statuses[(await post_telegram(http, junk)).status_code] += 1
            raw = rng.choice(["payload=" + json.dumps(_junk(rng)), json.dumps(_junk(rng)),
                              "payload=%7B", "x=1&payload=null", ""])
            headers_kind = rng.choice(["form", "json"])
            r = await post_slack(http, raw) if headers_kind == "form" else await http.post(
                "/slack/events", content=raw.encode(), headers={
                    "content-type": "application/json",
                    **__import__("tests.fakes.slack", fromlist=["x"]).signed_headers(raw)})
            statuses[r.status_code] += 1
        for _ in range(100):
            event = discord_click(p.discord, {"id": "1", "channel_id": "3001"}, "x")
            event["data"] = _junk(rng) if rng.random() < 0.5 else {
                "custom_id": rng.choice(["ab:", "ab:q_x:9", "ab:q_x:zz", "", "ab:" + "q" * 200]),
                "component_type": 2}
            if rng.random() < 0.3:
                event.pop(rng.choice(list(event)))
            await p.discord.dispatch("INTERACTION_CREATE", event)
        assert 500 not in statuses and 0 not in statuses, statuses
        # Every adapter still answers afterwards.
        q = await create(http, "after-fuzz")
        tg_message = await p.tg.sent(CHAT["id"], lambda m: bool(m.get("reply_markup"))
                                     and q["id"] in json.dumps(m["reply_markup"]))
        await until(lambda: delivered(http, q["id"], "telegram"))
        await post_telegram(http, telegram_tap(p.tg, tg_message, "Canary", 99_999))
        view = await until(lambda: ended(http, q["id"]))
        assert view["result"]["answers"]["answers"]["target"]["answers"] == ["Canary"]
        q = await create(http, "after-fuzz-2")
        slack_message = await _slack_for(p, http, q["id"])
        await post_slack(http, slack_click(slack_message, "Production"))
        assert (await until(lambda: ended(http, q["id"])))["answeredBy"]["surface"] == "slack:C0123"
        q = await create(http, "after-fuzz-3")
        sent = await _discord_for(p, http, q["id"])
        button = next(b for row in sent["components"] for b in row["components"]
                      if b["label"] == "Production")
        await _discord_listening(p, sent, button["custom_id"].replace(q["id"], "q_" + "0" * 16))
        await p.discord.dispatch("INTERACTION_CREATE",
                                 discord_click(p.discord, sent, button["custom_id"]))
        assert (await until(lambda: ended(http, q["id"])))["answeredBy"]["surface"] == "discord:3001"
        tracebacks = p.server.logs().count("Traceback")
    figures.add("input: fuzzed replies and malformed platform payloads", reply_texts=len(texts),
                replies_accepted=accepted, telegram_payloads=300, slack_payloads=300,
                discord_events=100, statuses=dict(statuses), server_errors=0,
                adapters_working_after=4, tracebacks_in_log=tracebacks)


async def _slack_for(p: Any, http: httpx.AsyncClient, qid: str) -> dict[str, Any]:
    """The Slack prompt for `qid`, once the broker has recorded it (so a click binds)."""
    found = await until(lambda: [m for m in p.slack.posted() if qid in json.dumps(m["blocks"])])
    await until(lambda: delivered(http, qid, "slack"))
    return dict(found[-1])


async def _discord_for(p: Any, http: httpx.AsyncClient, qid: str) -> dict[str, Any]:
    """The Discord prompt for `qid`, once the broker has recorded it (so a click binds)."""
    found = await until(lambda: [m for m in p.discord.in_channel(3001)
                                 if qid in json.dumps(m["components"])])
    await until(lambda: delivered(http, qid, "discord"))
    return dict(found[-1])


async def _discord_listening(p: Any, message: dict[str, Any], unknown_tap: str) -> None:
    """Wait until discord.py answers gateway events again: a fuzzed event can break its
    connection, and it reconnects after a backoff. Taps on a question that does not exist
    (answered "already ended", nothing else) probe it until one gets its callback."""
    probes: list[str] = []

    async def answered() -> bool:
        if any(iid in p.discord.callbacks for iid in probes):
            return True
        probes.append(p.discord.snowflake())
        await p.discord.dispatch("INTERACTION_CREATE",
                                 discord_click(p.discord, message, unknown_tap, probes[-1]))
        return False
    await until(answered, timeout=30, interval=0.25)


# -- oversized bodies and slow clients -------------------------------------------------------

async def test_oversized_bodies_413_and_slow_clients_block_no_one(tmp_path: Path,
                                                                   figures: Figures) -> None:
    big = b"{" + b" " * (1024 * 1024 + 10) + b"}"
    paths = ["/v1/sessions/s/questions", "/v1/sessions/s/ask", "/v1/channels/webhook/sms",
             "/slack/events", "/telegram/webhook", "/mcp/"]
    surfaces = ["webhook:sms:+100"]
    async with platforms(tmp_path, surfaces) as p, p.server.http() as http:
        refused = {}
        for path in paths:  # with the path's credentials, so each one gets to read the body
            headers = {"content-type": "application/json",
                       "X-Telegram-Bot-Api-Secret-Token": TG_SECRET}
            fixed = await http.post(path, content=big, headers=headers)

            async def chunks() -> Any:
                for _ in range(17):
                    yield b" " * 65536
            chunked = await http.post(path, content=chunks(), headers=headers)
            refused[path] = (fixed.status_code, chunked.status_code)
        assert all(v == (413, 413) for v in refused.values()), refused
        assert (await http.get("/healthz")).status_code == 200

        # 60 slow clients: half trickle headers, half trickle a body, one byte at a time.
        host, port = "127.0.0.1", p.server.port
        stop = asyncio.Event()
        trickling: set[int] = set()

        async def slow(n: int) -> None:
            _, writer = await asyncio.open_connection(host, port)
            if n % 2:
                writer.write(b"POST /v1/sessions/slow/questions HTTP/1.1\r\nHost: x\r\n"
                             b"Authorization: Bearer " + AGENT_TOKEN.encode() +
                             b"\r\nContent-Length: 100000\r\n\r\n")
                head = b""
            else:
                head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "
            try:
                for byte in head or b"x" * 100_000:
                    if stop.is_set():
                        break
                    writer.write(bytes([byte]))
                    await writer.drain()
                    trickling.add(n)
                    await asyncio.sleep(0.1)  # the pace of a slow client, one byte at a time
            finally:
                writer.close()
        slow_tasks = [asyncio.create_task(slow(n)) for n in range(60)]
        await until(lambda: len(trickling) == 60)  # every slow client holds a connection open
        t0 = time.monotonic()
        made = await gather_limited((create(http, f"meanwhile-{i}", question())
                                     for i in range(50)), 10)
        health = await gather_limited((http.get("/healthz") for _ in range(200)), 20)
        busy_s = time.monotonic() - t0
        stop.set()
        await asyncio.gather(*slow_tasks, return_exceptions=True)
        assert len(made) == 50 and all(h.status_code == 200 for h in health)
    figures.add("input: oversized bodies and slow clients", oversized_paths=len(paths),
                refused_413="all (Content-Length and chunked)", slow_clients=60,
                normal_requests_served=f"{len(made) + len(health)}/250",
                served_in_s=round(busy_s, 2))
