"""`askbridge audit verify|export`: the hash-chained audit log of approvals, checked or written
out through the HTTP API with a main agent's token (the same settings as every client command)."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from typing import Any

from bridge.agent.client import AskClient
from bridge.cli.agent_commands import EXIT_ANSWERED, EXIT_FAILED, run_client
from bridge.text.i18n import tr

CSV_COLUMNS = ("seq", "time", "at", "kind", "approvalId", "data", "prev", "hash")


def cmd_verify(args: argparse.Namespace) -> int:
    async def verify(client: AskClient) -> int:
        report = await client.verify_audit()
        if report["ok"]:
            print(tr("en", "The audit log is intact: {count} entries.", count=report["entries"]))
            return EXIT_ANSWERED
        print(tr("en", "The audit log is broken at entry {seq}: {problem}",
                 seq=report["brokenAt"], problem=report["problem"]))
        return EXIT_FAILED

    return run_client("audit", args, verify)


def write_csv(entries: list[dict[str, Any]]) -> None:
    writer = csv.DictWriter(sys.stdout, CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for entry in entries:  # `data` as one JSON cell, keys sorted as it was hashed
        writer.writerow({**entry, "data": json.dumps(entry["data"], sort_keys=True,
                                                     ensure_ascii=False)})


def cmd_export(args: argparse.Namespace) -> int:
    async def export(client: AskClient) -> int:
        entries = await client.audit(args.since)
        if args.format == "csv":
            write_csv(entries)
        else:
            for entry in entries:
                print(json.dumps(entry, ensure_ascii=False))
        return EXIT_ANSWERED

    return run_client("audit", args, export)


def add_parsers(sub: Any, agent_options: Any) -> None:
    """`audit verify` and `audit export` under the `askbridge` command."""
    audit = sub.add_parser("audit", help="check or export the approvals' audit log",
                           description="The hash-chained log of every approval request, vote, "
                           "decision, rule and revocation (a main agent's token).")
    which = audit.add_subparsers(dest="audit_command", required=True, help="verify or export")
    verify = which.add_parser(
        "verify", help="check the hash chain; exit 1 naming the first broken entry",
        description="Check every entry's hash and its link to the one before, from the first "
        "entry (or where retention left the chain) to the last. Exit 0 intact, 1 broken (the "
        "first broken entry is named), 2 refused, 1 server not reachable.")
    agent_options(verify)
    verify.set_defaults(func=cmd_verify)
    export = which.add_parser("export", help="print the entries as JSON lines or CSV",
                              description="Print every entry in chain order: seq, time, at "
                              "(ms, as hashed), kind, approvalId, data, prev, hash.")
    agent_options(export)
    export.add_argument("--format", choices=("jsonl", "csv"), default="jsonl",
                        help="jsonl (default) or csv")
    export.add_argument("--since", help="only entries written at or after this ISO 8601 time, "
                        "e.g. 2026-12-01T00:00:00Z")
    export.set_defaults(func=cmd_export)
