"""`askbridge pending` and `askbridge history`: what waits, and a session's timeline, as lines."""

from __future__ import annotations

import argparse
import json
from typing import Any

from bridge.agent.client import AskClient
from bridge.cli.agent_commands import EXIT_ANSWERED, run_client


def line(view: dict[str, Any]) -> str:
    """One question on one line: id, session, state, when, and what was asked or answered."""
    questions = view.get("request", {}).get("questions", [])
    asked = " / ".join(str(q.get("question", "")) for q in questions)
    state = view["status"] + (f" ({view['reason']})" if view.get("reason") else "")
    answer = f"  → {view['summary']}" if view.get("summary") and view["status"] != "pending" else ""
    return f"{view['id']}  {view['session']}  {state}  {view['createdAt']}  {asked}{answer}"


def _print(views: list[dict[str, Any]], as_json: bool, empty: str) -> None:
    if as_json:
        print(json.dumps(views))
    elif not views:
        print(empty)
    for view in [] if as_json else views:
        print(line(view))


def cmd_pending(args: argparse.Namespace) -> int:
    async def pending(client: AskClient) -> int:
        _print(await client.pending(), args.json, "Nothing is waiting for an answer.")
        return EXIT_ANSWERED

    return run_client("pending", args, pending)


def cmd_history(args: argparse.Namespace) -> int:
    async def history(client: AskClient) -> int:
        views = await client.timeline(args.session, limit=args.limit)
        _print(views, args.json, f"No questions yet in session {client.session}.")
        return EXIT_ANSWERED

    return run_client("history", args, history)
