"""`askbridge hook claude-pre-tool-use`: Claude Code's PreToolUse hook asks askbridge for approval.

It always prints one decision and exits 0 — allow, deny, or `ask` (Claude Code's own prompt takes
over) when nobody decided or askbridge could not ask — except on stdin that is not a PreToolUse
event: one line on stderr and exit 1, a non-blocking error after which Claude Code's own
permission flow goes on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

import httpx

from bridge.agent.claude_code import (
    BadHookInput,
    PreToolUseInput,
    approval_body,
    decision,
    hook_output,
    read_hook_input,
    session_for,
)
from bridge.agent.client import AskClient, AskError, NoToken, unreachable
from bridge.cli.agent_commands import EXIT_ANSWERED, EXIT_FAILED, say, stop_on_signals
from bridge.cli.approval_commands import RISKS
from bridge.model.validation import InvalidRequest, session_key
from bridge.text.i18n import tr

HOOK_TIMEOUT = 540
"""Under Claude Code's default hook timeout (600 s), so the hook, not Claude Code, ends the wait
and says why."""


def session_of(args: argparse.Namespace, event: PreToolUseInput) -> str:
    """--session, else ASKBRIDGE_SESSION, else one askbridge session per Claude Code session."""
    return args.session or os.environ.get("ASKBRIDGE_SESSION") or session_for(event.session_id)


async def ask_for(args: argparse.Namespace, event: PreToolUseInput) -> dict[str, Any]:
    """The decision to print for `event`: askbridge's, or `ask` with why it has none."""
    stop_on_signals()
    body = approval_body(event.tool_name, event.tool_input, args.timeout, args.risk)
    url = (args.url or os.environ.get("ASKBRIDGE_URL") or "").rstrip("/") or None
    try:
        session = session_key(session_of(args, event))
        async with AskClient(url, args.token, session) as client:
            try:
                result = await client.approve_body(body)
            except httpx.TransportError:
                return decision("ask", unreachable(client.url))
            except ValueError as exc:  # not JSON: inf, NaN, a lone surrogate (JSON.stringify
                if isinstance(exc, NoToken):  # writes one as `\ud800`, Python reads it back)
                    raise
                return decision("ask", tr("en", "The tool input holds a value JSON cannot carry "
                                          "to askbridge ({error}); decide here.", error=str(exc)))
    except NoToken as exc:
        return decision("ask", str(exc))
    except InvalidRequest as exc:
        return decision("ask", "; ".join(f"{p.loc}: {p.msg}" for p in exc.problems))
    except AskError as exc:
        problems = "; ".join(str(d.get("msg", "")) for d in exc.details) or str(exc)
        return decision("ask", tr("en", "askbridge refused the approval ({problems}); decide "
                                  "here.", problems=problems))
    except asyncio.CancelledError:  # stopped (Claude Code's hook timeout): nobody decided
        return decision("ask", tr("en", "The approval was stopped before anyone decided; "
                                  "decide here."))
    return hook_output(result.to_json())


def cmd_claude_pre_tool_use(args: argparse.Namespace) -> int:
    try:
        event = read_hook_input(sys.stdin.read())
    except BadHookInput as exc:
        say("hook", str(exc))
        return EXIT_FAILED
    except (OSError, UnicodeDecodeError) as exc:
        say("hook", tr("en", "stdin cannot be read ({error}); run this command as a Claude "
                       "Code PreToolUse hook.", error=str(exc)))
        return EXIT_FAILED
    print(json.dumps(asyncio.run(ask_for(args, event))), flush=True)
    return EXIT_ANSWERED


def add_parsers(sub: Any, agent_options: Any) -> None:
    """`hook claude-pre-tool-use` under the `askbridge` command."""
    hook = sub.add_parser("hook", help="hooks for agent hosts (Claude Code)",
                          description="Commands an agent host runs as its hooks.")
    which = hook.add_subparsers(dest="hook_command", required=True,
                                help="which host event: claude-pre-tool-use")
    pre = which.add_parser(
        "claude-pre-tool-use", help="Claude Code's PreToolUse hook: ask a person to approve "
        "each tool use",
        description="Reads Claude Code's PreToolUse event on stdin, asks for approval in "
        "askbridge and prints Claude Code's decision JSON: allow, deny, or ask (Claude Code's "
        "own prompt) when nobody decided. Exit 0 when it printed a decision, 1 when stdin is "
        "not a PreToolUse event. The session is --session, else $ASKBRIDGE_SESSION, else "
        "claude:<Claude Code's session_id>.")
    agent_options(pre)
    pre.add_argument("--risk", choices=RISKS, help="low, medium (default) or high")
    pre.add_argument("--timeout", type=int, default=HOOK_TIMEOUT,
                     help=f"seconds a person has to decide (30-3600, default {HOOK_TIMEOUT}: "
                     "under Claude Code's default hook timeout of 600 s); keep it under the "
                     "hook's `timeout` in Claude Code's settings")
    pre.set_defaults(func=cmd_claude_pre_tool_use)
