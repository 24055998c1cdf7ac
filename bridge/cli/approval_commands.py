"""`askbridge approve` and `askbridge rules`: an agent's approvals from a shell, over HTTP."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import httpx

from bridge.agent.approvals import approval_body
from bridge.agent.client import AskClient, AskError
from bridge.cli.agent_commands import (
    EXIT_ANSWERED,
    EXIT_NO_ANSWER,
    EXIT_USAGE,
    run_client,
    say,
)
from bridge.model.approval import ApprovalResult
from bridge.text.i18n import tr

EXIT_APPROVED = EXIT_ANSWERED
EXIT_REJECTED = 4
RISKS = ("low", "medium", "high")


def exit_code(result: ApprovalResult) -> int:
    """0 approved, 4 rejected, 3 no answer (as `ask`'s 3)."""
    return {"approved": EXIT_APPROVED, "rejected": EXIT_REJECTED}.get(result.status,
                                                                       EXIT_NO_ANSWER)


def _json_object(text: str, what: str, problems: list[str]) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError as exc:
        problems.append(tr("en", "{what} is not JSON ({error}); give one JSON object.",
                           what=what, error=str(exc)))
        return None
    if not isinstance(value, dict):
        problems.append(tr("en", "{what} must be a JSON object ({{…}}), not {kind}.",
                           what=what, kind=type(value).__name__))
        return None
    return value


def request_from_args(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    """The approval request the options describe, and every problem with them at once."""
    problems: list[str] = []
    arguments = None if args.arguments is None else _json_object(
        args.arguments, "--arguments", problems)
    schema = None
    if args.schema is not None:
        try:
            schema = _json_object(Path(args.schema).read_text(encoding="utf-8"),
                                  f"--schema {args.schema}", problems)
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(tr("en", "--schema {file} cannot be read ({error}); give the path "
                               "of a JSON Schema file.", file=args.schema, error=str(exc)))
    body = approval_body(args.action, tool=args.tool, arguments=arguments,
                         arguments_schema=schema, risk=args.risk,
                         allow_edit=False if args.no_edit else None,
                         timeout_seconds=args.timeout)
    return body, problems


async def stopped(client: AskClient, approval_id: str) -> ApprovalResult:
    """The result of an approval whose wait was stopped: cancelled now (a decision that already
    won stays); `cancelled` when the server cannot say."""
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()
    try:
        return await asyncio.wait_for(client.cancel_approval(approval_id), 5)
    except (AskError, httpx.TransportError, TimeoutError):
        return ApprovalResult.model_validate({"status": "no_answer", "reason": "cancelled"})


def cmd_approve(args: argparse.Namespace) -> int:
    body, problems = request_from_args(args)
    if problems:
        for problem in problems:
            say("approve", problem)
        return EXIT_USAGE

    async def approve(client: AskClient) -> int:
        # Requested without blocking, so its id is known at once; then long-polled.
        approval_id = str((await client.create_approval(body))["id"])
        say("approve", tr("en", "requested {id}; waiting for the decision (Ctrl-C cancels "
                          "it)…", id=approval_id))
        try:
            result = await client.wait_approval(approval_id)
        except asyncio.CancelledError:
            result = await stopped(client, approval_id)
        print(json.dumps(result.to_json()), flush=True)
        return exit_code(result)

    return run_client("approve", args, approve)


def cmd_rules_list(args: argparse.Namespace) -> int:
    async def listing(client: AskClient) -> int:
        rules = await client.rules()
        if args.json:
            print(json.dumps(rules))
        elif not rules:
            print(tr("en", "No rules: nothing is allowed without asking."))
        for rule in [] if args.json else rules:
            print(rule_line(rule))
        return EXIT_ANSWERED

    return run_client("rules", args, listing)


def rule_line(rule: dict[str, Any]) -> str:
    """One rule on one line: id, agent, tool, which arguments, until when."""
    arguments = "any arguments" if rule.get("anyArguments") else (
        f"arguments {str(rule.get('payloadHash'))[:12]}…")
    return (f"{rule.get('id')}  {rule.get('agent')}  {rule.get('tool') or '-'}  {arguments}  "
            f"until {rule.get('expiresAt')}")


def cmd_rules_revoke(args: argparse.Namespace) -> int:
    async def revoke(client: AskClient) -> int:
        rule = await client.revoke_rule(args.id)
        print(json.dumps(rule))
        return EXIT_ANSWERED

    return run_client("rules", args, revoke)


def add_parsers(sub: Any, agent_options: Any) -> None:
    """`approve` and `rules` under the `askbridge` command."""
    approve = sub.add_parser(
        "approve", help="ask a person to approve an action and wait; prints the decision JSON",
        description="Ask a person to approve an action and block. The approval id and a waiting "
        "line go to stderr, the decision JSON to stdout. Exit 0 approved (run the printed "
        "arguments), 4 rejected, 3 no answer, 2 refused (bad call, token, 409), 1 server not "
        "reachable.")
    agent_options(approve)
    approve.add_argument("action", help="what will happen, in one line (at most 200 characters)")
    approve.add_argument("--tool", help="the tool that will run (at most 64 characters)")
    approve.add_argument("--arguments", help="the exact arguments, as one JSON object")
    approve.add_argument("--schema", help="a JSON Schema file an edit of the arguments must "
                         "satisfy")
    approve.add_argument("--risk", choices=RISKS, help="low, medium (default) or high")
    approve.add_argument("--no-edit", action="store_true",
                         help="the person may approve or reject, not edit the arguments")
    approve.add_argument("--timeout", type=int, help="seconds to wait (30-3600, default 900)")
    approve.set_defaults(func=cmd_approve)

    rules = sub.add_parser("rules", help="list or revoke standing approvals (Allow for 1 h)",
                           description="The rules people made with \"Allow for 1 h\": a "
                           "matching approval is approved at once until the rule ends.")
    which = rules.add_subparsers(dest="rules_command", required=True, help="list or revoke")
    listing = which.add_parser("list", help="list the rules in force")
    agent_options(listing)
    listing.add_argument("--json", action="store_true", help="print the rules as JSON")
    listing.set_defaults(func=cmd_rules_list)
    revoke = which.add_parser("revoke", help="revoke a rule at once")
    agent_options(revoke)
    revoke.add_argument("id", help="the rule id, as `askbridge rules list` prints it")
    revoke.set_defaults(func=cmd_rules_revoke)
