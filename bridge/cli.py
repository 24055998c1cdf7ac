"""The `askbridge` command: serve, ask, reply, mcp, doctor."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from bridge.config import (
    BridgeConfig,
    ConfigError,
    default_env,
    embedded_defaults,
    load_config,
    load_credentials,
)
from bridge.i18n import negotiate, tr

EXIT_ANSWERED = 0
EXIT_NO_ANSWER = 3
EXIT_USAGE = 2


def _welcome(config: BridgeConfig, env: dict[str, str], created: bool) -> str:
    agent = config.agents[0]
    token = env[agent.token_env]
    web = env.get(config.web.token_env, "")
    lines = [
        "askbridge is running on its embedded defaults.",
        f"  API:        {config.base_url}  (OpenAPI at /openapi.json)",
        f"  Web UI:     {config.base_url}/?token={web}",
        f"  Agent:      {agent.name} (role main), token {token}",
        "  Ask:        askbridge ask \"Deploy where?\" -o \"Staging (Recommended)\" -o Production",
        "  Answer:     askbridge reply 1   (the console text channel), or in the web UI",
        f"  Secrets are kept in {Path(config.data_dir) / 'credentials.json'}"
        + (" (just created)." if created else "."),
    ]
    return "\n".join(lines)


def cmd_serve(args: argparse.Namespace) -> int:
    from bridge.app import Bridge
    from bridge.logs import configure
    from bridge.serving import BridgeServer

    configure(args.log_level)
    created = False
    try:
        path = args.config or os.environ.get("ASKBRIDGE_CONFIG")
        if path:
            config, env, defaults = load_config(path), dict(os.environ), False
        else:
            config = embedded_defaults()
            env, created = default_env(config.data_dir, dict(os.environ))
            defaults = True
        overrides = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
        if overrides:
            config = config.model_copy(update={"server": config.server.model_copy(
                update=overrides)})
        bridge = Bridge.build(config, env)
    except ConfigError as exc:
        print(f"askbridge: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if defaults:
        print(_welcome(config, env, created), flush=True)
    BridgeServer(bridge, config.server.host, config.server.port).run()
    return 0


def _question_from_args(args: argparse.Namespace) -> dict[str, Any]:
    if args.json:
        raw = sys.stdin.read() if args.json == "-" else args.json
        body: dict[str, Any] = json.loads(raw)
        return body
    if not args.question or not args.option:
        raise ValueError('Give a question and options: askbridge ask "Deploy where?" -o A -o B '
                         "(or --json '{\"questions\": [...]}').")
    question = {"id": args.id, "header": args.header, "question": args.question,
                "options": [{"label": o} for o in args.option], "multiSelect": args.multi}
    body = {"questions": [question]}
    if args.timeout is not None:
        body["timeoutSeconds"] = args.timeout
    return body


def cmd_ask(args: argparse.Namespace) -> int:
    from bridge.client import AskClient, AskError

    try:
        body = _question_from_args(args)
    except (ValueError, json.JSONDecodeError) as exc:
        print(f"askbridge ask: {exc}", file=sys.stderr)
        return EXIT_USAGE

    async def run() -> int:
        async with AskClient(args.url, args.token, args.session) as client:
            result = await client.ask(body)
        print(json.dumps(result.to_json()))
        return EXIT_ANSWERED if result.status == "answered" else EXIT_NO_ANSWER

    try:
        return asyncio.run(run())
    except AskError as exc:
        for d in exc.details:
            print(f"askbridge ask: {d.get('loc')}: {d.get('msg')}", file=sys.stderr)
        return EXIT_USAGE if exc.status in (401, 403, 409, 413, 422) else 1
    except (OSError, ValueError) as exc:
        print(f"askbridge ask: cannot reach askbridge ({exc}); is `askbridge serve` running?",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return EXIT_NO_ANSWER


def cmd_reply(args: argparse.Namespace) -> int:
    import httpx

    from bridge.security import SIGNATURE_HEADER, sign

    secret = args.secret or os.environ.get("ASKBRIDGE_LOCAL_WEBHOOK_SECRET")
    if not secret:
        creds = load_credentials(".askbridge") or {}
        secret = creds.get("webhook_secret")
    if not secret:
        print("askbridge reply: no channel secret; pass --secret or run beside .askbridge/",
              file=sys.stderr)
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
    except httpx.HTTPError as exc:
        print(f"askbridge reply: cannot reach askbridge at {url} ({exc})", file=sys.stderr)
        return 1
    data = response.json()
    if response.status_code != 200:
        print(f"askbridge reply: {data}", file=sys.stderr)
        return 1
    # The server's reply is in the channel's language; our own two words follow the shell's.
    locale = negotiate(os.environ.get("LC_ALL") or os.environ.get("LANG"))
    print(data.get("reply") or (tr(locale, "Accepted.") if data.get("accepted") else
                                 tr(locale, "No question is waiting in this conversation.")))
    return 0 if data.get("accepted") else 1


def cmd_mcp(args: argparse.Namespace) -> int:
    from bridge.mcp_stdio import main

    main(args.url, args.token, args.session)
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from bridge.doctor import run_doctor

    return asyncio.run(run_doctor(args))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="askbridge", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the bridge (embedded defaults without --config)")
    serve.add_argument("--config", help="TOML config file (default: $ASKBRIDGE_CONFIG)")
    serve.add_argument("--host", help="override server.host (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="override server.port")
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(func=cmd_serve)

    for name, func, text in (("ask", cmd_ask, "ask from a shell; prints the result JSON"),
                             ("mcp", cmd_mcp, "the stdio MCP server")):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("--url", help="server URL (default: $ASKBRIDGE_URL or 127.0.0.1:8765)")
        cmd.add_argument("--token", help="agent token (default: $ASKBRIDGE_TOKEN)")
        cmd.add_argument("--session", help="session key (default: $ASKBRIDGE_SESSION or main)")
        cmd.set_defaults(func=func)
        if name == "ask":
            cmd.add_argument("question", nargs="?", help="the question (one sentence)")
            cmd.add_argument("-o", "--option", action="append", help="an option (2-4 times)")
            cmd.add_argument("--header", default="Question", help="short chip label")
            cmd.add_argument("--id", default="answer", help="the answer key")
            cmd.add_argument("--multi", action="store_true", help="allow several options")
            cmd.add_argument("--timeout", type=int, help="seconds (30-3600, default 900)")
            cmd.add_argument("--json", help="the whole AskRequest as JSON ('-' reads stdin)")

    reply = sub.add_parser("reply", help="answer on the local console text channel")
    reply.add_argument("text", nargs="+")
    reply.add_argument("--channel", default="local")
    reply.add_argument("--conversation", default="console")
    reply.add_argument("--sender", default="console")
    reply.add_argument("--reply-to", help="the question id you are answering")
    reply.add_argument("--secret", help="the channel secret (default: .askbridge/credentials.json)")
    reply.add_argument("--url")
    reply.set_defaults(func=cmd_reply)

    doctor = sub.add_parser("doctor", help="check a config and each platform's credentials")
    doctor.add_argument("--config", help="TOML config file (default: $ASKBRIDGE_CONFIG)")
    doctor.set_defaults(func=cmd_doctor)
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    sys.exit(args.func(args))
