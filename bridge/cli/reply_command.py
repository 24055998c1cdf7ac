"""`askbridge reply`: a person's answer on the local console channel, signed like a gateway's."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

import httpx

from bridge.agent.client import AskClient, AskError, NoToken, unreachable
from bridge.cli.agent_commands import EXIT_FAILED, EXIT_USAGE
from bridge.cli.waiting_commands import line
from bridge.runtime.config import load_credentials
from bridge.runtime.security import SIGNATURE_HEADER, sign
from bridge.text.i18n import negotiate, tr


def _say(text: str) -> None:
    print(f"askbridge reply: {text}", file=sys.stderr)


def _secret(args: argparse.Namespace) -> str | None:
    secret = args.secret or os.environ.get("ASKBRIDGE_LOCAL_WEBHOOK_SECRET")
    if not secret:
        secret = (load_credentials(".askbridge") or {}).get("webhook_secret")
    return secret


def waiting_here(url: str, surface: str) -> list[dict[str, Any]]:
    """The questions pending on this conversation, when the agent's token is at hand (run
    beside `.askbridge/`, or with ASKBRIDGE_TOKEN); else none known."""

    async def listed() -> list[dict[str, Any]]:
        async with AskClient(url) as client:
            return [v for v in await client.pending() if surface in v.get("surfaces", [])]

    try:
        return asyncio.run(listed())
    except (NoToken, AskError, httpx.TransportError):
        return []


def cmd_reply(args: argparse.Namespace) -> int:
    secret = _secret(args)
    if not secret:
        _say(tr("en", "no channel secret; pass --secret or run beside .askbridge/"))
        return EXIT_USAGE
    payload: dict[str, Any] = {"conversation": args.conversation, "sender": args.sender,
                               "text": " ".join(args.text)}
    if args.reply_to:
        payload["replyTo"] = args.reply_to
    body = json.dumps(payload).encode()
    url = (args.url or os.environ.get("ASKBRIDGE_URL") or "http://127.0.0.1:8765").rstrip("/")
    try:
        response = httpx.post(f"{url}/v1/channels/webhook/{args.channel}", content=body,
                              headers={"content-type": "application/json",
                                       SIGNATURE_HEADER: sign(secret, body)}, trust_env=False)
    except httpx.TransportError:
        _say(unreachable(url))
        return EXIT_FAILED
    if response.status_code != 200:
        try:
            details = response.json().get("details", [])
        except ValueError:
            details = [{"loc": "server", "msg": response.text[:200]}]
        for d in details:
            _say(f"{d.get('loc')}: {d.get('msg')}")
        return EXIT_USAGE if response.status_code < 500 else EXIT_FAILED
    return _told(response.json(), args, url)


def _told(data: dict[str, Any], args: argparse.Namespace, url: str) -> int:
    """Print what the person is told; a refused reply exits 2, as a refused ask does."""
    # The server's reply is in the channel's language; our own words follow the shell's.
    locale = negotiate(os.environ.get("LC_ALL") or os.environ.get("LANG"))
    print(data.get("reply") or (tr(locale, "Accepted.") if data.get("accepted") else
                                 tr(locale, "No question is waiting in this conversation.")))
    if data.get("accepted"):
        return 0
    waiting = [] if args.reply_to else waiting_here(
        url, f"webhook:{args.channel}:{args.conversation}")
    if len(waiting) > 1:
        _say(tr(locale, "{count} questions are waiting here; say which one with --reply-to ID:",
                count=len(waiting)))
        for view in waiting:
            print(f"  {line(view)}", file=sys.stderr)
    return EXIT_USAGE
