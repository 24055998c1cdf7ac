"""Schemathesis against the real server and its own /openapi.json: no 500, every status, header
and body as documented, schema-violating requests refused, auth enforced, and stateful runs
that create, poll, answer and cancel real questions."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import httpx

from bridge.model.text_faults import text_faults
from tests.fakes.gateway import Gateway, gateway
from tests.harness import AGENT_TOKEN, WEBHOOK_SECRET
from tests.reliability.figures import Figures
from tests.reliability.server import Server
from tests.reliability.support import signed

CHECKS = ["not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_schema_conformance", "negative_data_rejection", "ignored_auth"]
CONFIG = Path(__file__).with_name("schemathesis.toml")
"""Its bounds: examples per operation and phase, stateful scenarios and their steps."""
SEED = int(os.environ.get("ASKBRIDGE_SEED", "1"))
PERSON_DELAY = 0.3
"""The person answers each prompt after this long, so polls and cancels also meet pending
questions, and a blocking ask returns instead of waiting out its 30 s minimum."""


def fuzz_config(gateway_url: str) -> dict[str, Any]:
    return {"agents": [{"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main",
                        "surfaces": ["webhook:sms:+100"]}],
            "webhooks": {"sms": {"secret_env": "HOOK_SECRET", "url": gateway_url,
                                 "timeout_seconds": 5}},
            "web": {"enabled": False}}


async def person(gw: Gateway, url: str) -> None:
    """Answers every prompt the gateway receives, approvals too: option 1 (Approve, for an
    approval), then `skip` (which ends the questions "1" left open; on an ended one it only
    gets "already ended")."""
    answered = 0
    replies: set[asyncio.Task[None]] = set()
    async with httpx.AsyncClient(base_url=url, trust_env=False, timeout=10) as http:

        async def answer(prompt: dict[str, Any]) -> None:
            await asyncio.sleep(PERSON_DELAY)  # a person takes a moment to reply
            for text in ("1", "skip"):
                body, headers = signed({"conversation": prompt["conversation"],
                                        "sender": prompt["conversation"], "text": text,
                                        "replyTo": prompt["questionId"]})
                await http.post("/v1/channels/webhook/sms", content=body, headers=headers)

        while True:
            prompts = [p for p in gw.received if p["kind"] in ("prompt", "approval")]
            for prompt in prompts[answered:]:
                task = asyncio.create_task(answer(prompt))
                replies.add(task)
                task.add_done_callback(replies.discard)
            answered = len(prompts)
            await asyncio.sleep(0.05)  # a poll of the gateway's inbox, not a settling wait


async def run_schemathesis(server: Server, out: Path) -> int:
    env = {**server.env, "PYTHONPATH": str(Path(__file__).parents[2]),
           "FUZZ_AGENT_TOKEN": AGENT_TOKEN, "FUZZ_WEBHOOK_SECRET": WEBHOOK_SECRET}
    args = ["--config-file", str(CONFIG), "run", f"{server.url}/openapi.json",
            "--checks", ",".join(CHECKS), "--seed", str(SEED), "--suppress-health-check", "all",
            "--report", "har", "--report-har-path", str(out / "requests.har"),
            "--report", "junit", "--report-junit-path", str(out / "junit.xml")]
    schemathesis = Path(sys.executable).parent / "schemathesis"
    with (out / "schemathesis.txt").open("wb") as sink:
        proc = await asyncio.create_subprocess_exec(
            str(schemathesis), *args, cwd=out, env=env, stdout=sink,
            stderr=asyncio.subprocess.STDOUT)
        return await asyncio.wait_for(proc.wait(), 600)


INTERPRETER_FAULT = "AST constructor recursion depth mismatch"
"""A CPython 3.11 fault inside Hypothesis (it parses Schemathesis' own source to describe a
filter): Schemathesis reports it as a runtime error of its generator, not as a finding about
askbridge. Seen once in many runs, and once in two runs in a row on a busy host."""
RUNS = 3
"""Runs with the same seed while the only errors are that fault."""


def _generator_fault_only(output: str) -> bool:
    """The run's only errors are the interpreter fault, and no check failed."""
    return (INTERPRETER_FAULT in output and "Failures:" not in output
            and re.search(r"(\d+) generated, \1 passed", output) is not None)


async def test_schemathesis_finds_no_failure(tmp_path: Path, figures: Figures) -> None:
    async with gateway(WEBHOOK_SECRET) as gw:
        server = Server(tmp_path, fuzz_config(gw.url))
        await server.start()
        answering = asyncio.create_task(person(gw, server.url))
        try:
            for _ in range(RUNS):
                code = await run_schemathesis(server, tmp_path)
                output = (tmp_path / "schemathesis.txt").read_text(errors="replace")
                if code == 0 or not _generator_fault_only(output):
                    break
        finally:
            answering.cancel()
            await server.stop()
    output = (tmp_path / "schemathesis.txt").read_text(errors="replace")
    assert code == 0, output[-6000:]
    cases = re.search(r"(\d+) generated, (\d+) passed", output)
    assert cases, output[-3000:]
    requests = len(json.loads((tmp_path / "requests.har").read_text())["log"]["entries"])
    statuses = _statuses(tmp_path / "requests.har")
    assert "Traceback" not in server.logs(), server.logs()[-3000:]
    # The run reached the core, not only the refusals: questions were created and answered.
    assert statuses.get(202, 0) > 0 and statuses.get(200, 0) > 0 and len(gw.prompts()) > 0
    # Bodies with a NUL or a lone surrogate (fuzz_hooks.flatmap_body) were sent and refused.
    faulty = _faulty_statuses(tmp_path / "requests.har")
    assert faulty.get(422, 0) > 0, faulty
    assert not {s for s in faulty if s >= 500 or 200 <= s < 300}, faulty
    figures.add("input: Schemathesis (OpenAPI document vs. server)", test_cases=cases[1],
                requests=requests, statuses=dict(sorted(statuses.items())),
                prompts_answered=len(gw.prompts()), checks=len(CHECKS), failures=0,
                nul_or_surrogate_bodies=dict(sorted(faulty.items())),
                phases=_phases(output))


def _statuses(har: Path) -> dict[int, int]:
    counts: dict[int, int] = {}
    for entry in json.loads(har.read_text())["log"]["entries"]:
        status = int(entry["response"]["status"])
        counts[status] = counts.get(status, 0) + 1
    return counts


def _faulty_statuses(har: Path) -> dict[int, int]:
    """Statuses of the requests whose body held a NUL or a lone surrogate in a string."""
    counts: dict[int, int] = {}
    for entry in json.loads(har.read_text())["log"]["entries"]:
        body = entry["request"].get("postData", {}).get("text", "")
        try:
            faulty = next(text_faults(json.loads(body)), None) is not None
        except ValueError:
            continue
        if faulty:
            status = int(entry["response"]["status"])
            counts[status] = counts.get(status, 0) + 1
    return counts


def _phases(output: str) -> str:
    stateful = re.search(r"Scenarios:\s+(\d+)", output)
    links = re.search(r"API Links:\s+(\d+) covered", output)
    return (f"examples, coverage, fuzzing, stateful ({stateful[1] if stateful else '?'} "
            f"scenarios, {links[1] if links else '?'} links covered)")
