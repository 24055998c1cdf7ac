"""The agent's side of the `askbridge` command: ask, status, cancel, mcp (all over HTTP)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from bridge.agent.client import DEFAULT_URL, AskClient, AskError, NoToken, unreachable
from bridge.model.contract import AskResult
from bridge.text.i18n import tr

EXIT_ANSWERED = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NO_ANSWER = 3
REFUSALS = (401, 403, 404, 409, 413, 422)
"""Statuses that mean the call itself must change: a usage error, not a server failure."""


def say(command: str, text: str) -> None:
    print(f"askbridge {command}: {text}", file=sys.stderr, flush=True)


def run_client(command: str, args: argparse.Namespace,
               body: Callable[[AskClient], Awaitable[int]]) -> int:
    """Run `body` with a client, turning every way it can fail into one line and an exit code."""

    async def main() -> int:
        stop_on_signals()
        async with AskClient(args.url, args.token, args.session) as client:
            return await body(client)

    try:
        return asyncio.run(main())
    except NoToken as exc:
        say(command, str(exc))
        return EXIT_USAGE
    except AskError as exc:
        for d in exc.details:
            say(command, f"{d.get('loc')}: {d.get('msg')}")
        return EXIT_USAGE if exc.status in REFUSALS else EXIT_FAILED
    except httpx.TransportError:
        say(command, unreachable(_url(args)))
        return EXIT_FAILED
    except (KeyboardInterrupt, asyncio.CancelledError):
        return EXIT_NO_ANSWER


def stop_on_signals() -> None:
    """SIGTERM and SIGHUP (a closed terminal) stop the command as Ctrl-C does: the running
    task is cancelled, so a waiting ask cancels its question instead of locking its session."""
    loop, task = asyncio.get_running_loop(), asyncio.current_task()
    assert task is not None
    for sig in (signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, task.cancel)


async def stopped(client: AskClient, question_id: str) -> AskResult:
    """The result of a question whose wait was stopped: cancelled now (an answer that already
    won stays the answer); `cancelled` when the server cannot say."""
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()  # the stop is handled here; later awaits must run
    try:
        return await asyncio.wait_for(client.cancel(question_id), 5)
    except (AskError, httpx.TransportError, TimeoutError):
        return AskResult.model_validate({"status": "no_answer", "reason": "cancelled"})


def _url(args: argparse.Namespace) -> str:
    return (args.url or os.environ.get("ASKBRIDGE_URL") or DEFAULT_URL).rstrip("/")


def question_from_args(args: argparse.Namespace) -> dict[str, Any]:
    if args.json:
        raw = sys.stdin.read() if args.json == "-" else args.json
        body: dict[str, Any] = json.loads(raw)
        return body
    if not args.question or not args.option:
        raise ValueError(tr("en", 'Give a question and options: askbridge ask "Deploy where?" -o A '
                            "-o B (or --json '{\"questions\": [...]}')."))
    question = {"id": args.id, "header": args.header, "question": args.question,
                "options": [{"label": o} for o in args.option], "multiSelect": args.multi}
    body = {"questions": [question]}
    if args.timeout is not None:
        body["timeoutSeconds"] = args.timeout
    return body


def cmd_ask(args: argparse.Namespace) -> int:
    try:
        body = question_from_args(args)
    except (ValueError, json.JSONDecodeError) as exc:
        say("ask", str(exc))
        return EXIT_USAGE

    async def ask(client: AskClient) -> int:
        # Asked without blocking, so its id is known at once; then long-polled (Ctrl-C cancels).
        created = await client.create(body)
        for warning in created.get("warnings", []):
            say("ask", tr("en", "warning: {loc}: {msg}", loc=warning.get("loc"),
                          msg=warning.get("msg")))
        qid = str(created["id"])
        say("ask", tr("en", "asked {id}; waiting for the answer (Ctrl-C cancels it)…", id=qid))
        try:
            result = await client.wait(qid)
        except asyncio.CancelledError:
            result = await stopped(client, qid)
        print(json.dumps(result.to_json()), flush=True)
        return EXIT_ANSWERED if result.status == "answered" else EXIT_NO_ANSWER

    return run_client("ask", args, ask)


def cmd_status(args: argparse.Namespace) -> int:
    async def status(client: AskClient) -> int:
        view = await client.question(args.id)
        print(json.dumps({k: view.get(k) for k in ("id", "status", "reason", "session",
                                                    "expiresAt", "summary", "result")
                          if view.get(k) is not None}))
        return EXIT_ANSWERED

    return run_client("status", args, status)


def cmd_cancel(args: argparse.Namespace) -> int:
    async def cancel(client: AskClient) -> int:
        result = await client.cancel(args.id)
        print(json.dumps(result.to_json()))
        return EXIT_ANSWERED if result.status == "no_answer" else EXIT_NO_ANSWER

    return run_client("cancel", args, cancel)


def cmd_mcp(args: argparse.Namespace) -> int:
    from bridge.mcp.stdio import main

    try:
        main(args.url, args.token, args.session)
    except NoToken as exc:
        say("mcp", str(exc))
        return EXIT_USAGE
    return EXIT_ANSWERED
