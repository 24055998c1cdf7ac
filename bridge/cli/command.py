"""The `askbridge` command's parser and the operator's commands (serve, doctor, reply)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from bridge.agent.client import unreachable
from bridge.cli import agent_commands
from bridge.runtime.config import (
    BridgeConfig,
    ConfigError,
    default_env,
    embedded_defaults,
    load_config,
    load_credentials,
    web_ui,
)
from bridge.runtime.version import package_version
from bridge.text.i18n import negotiate, tr

EXIT_USAGE = 2
LOG_LEVELS = ("debug", "info", "warning", "error")


def _welcome(config: BridgeConfig, env: dict[str, str], created: bool, reveal: bool) -> str:
    """What `serve` prints on its embedded defaults; the token and the login link only to a
    terminal (a log file is read by more people, for longer), else where to read them."""
    agent = config.agents[0]
    token = env[agent.token_env]
    web = env.get(web_ui(config)[1], "")
    kept = Path(config.data_dir) / "credentials.json"
    hidden = tr("en", "in {file}", file=kept)
    lines = [
        "askbridge is running on its embedded defaults.",
        f"  API:        {config.base_url}  (OpenAPI at /openapi.json)",
        f"  Web UI:     {config.base_url}/?token={web if reveal else '<web_token ' + hidden + '>'}",
        f"  Agent:      {agent.name} (role main), token "
        f"{token if reveal else '<agent_token ' + hidden + '>'}",
        "  Ask:        askbridge ask \"Deploy where?\" -o \"Staging (Recommended)\" -o Production",
        "  Answer:     askbridge reply 1   (the console text channel), or in the web UI",
        f"  Secrets are kept in {Path(config.data_dir) / 'credentials.json'}"
        + (" (just created)." if created else "."),
    ]
    return "\n".join(lines)


def _banner(config: BridgeConfig, env: dict[str, str], path: str, reveal: bool) -> str:
    """What `serve --config` prints; the login token itself only to a terminal, never to logs."""
    enabled, token_env = web_ui(config)
    web = env.get(token_env, "")
    token = web if reveal else f"<value of ${token_env}>"
    login = (f"{config.base_url}/?token={token}" if web else
             tr("en", "set {var} to log in", var=token_env))
    agents = ", ".join(f"{a.name} ({a.role})" for a in config.agents) or tr("en", "none")
    lines = [
        tr("en", "askbridge is running with {path}.", path=path),
        f"  API:        {config.base_url}  (OpenAPI at /openapi.json)",
        f"  Web UI:     {login if enabled else tr('en', 'off ([web] enabled = false)')}",
        f"  Agents:     {agents}",
    ]
    return "\n".join(lines)


def cmd_serve(args: argparse.Namespace) -> int:
    from bridge.runtime.logs import configure
    from bridge.server.composition import Bridge
    from bridge.server.serve import BridgeServer, port_problem, settle_gc

    configure(args.log_level)
    path = args.config or os.environ.get("ASKBRIDGE_CONFIG")
    try:
        config = load_config(path) if path else embedded_defaults()
        overrides = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
        if overrides:
            config = config.model_copy(update={"server": config.server.model_copy(
                update=overrides)})
        problem = port_problem(config.server.host, config.server.port)
        if problem:  # before anything is created or started, so nothing half-runs
            print(f"askbridge: {problem}", file=sys.stderr)
            return EXIT_USAGE
        env, created = (dict(os.environ), False) if path else default_env(
            config.data_dir, dict(os.environ))
        bridge = Bridge.build(config, env)
    except ConfigError as exc:
        print(f"askbridge: {exc}", file=sys.stderr)
        return EXIT_USAGE
    reveal = sys.stdout.isatty()
    print(_banner(config, env, path, reveal) if path else _welcome(config, env, created, reveal),
          flush=True)
    server = BridgeServer(bridge, config.server.host, config.server.port)
    settle_gc()
    server.run()
    return 0


def cmd_reply(args: argparse.Namespace) -> int:
    import httpx

    from bridge.runtime.security import SIGNATURE_HEADER, sign

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
    except httpx.TransportError:
        print(f"askbridge reply: {unreachable(url)}", file=sys.stderr)
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


def cmd_doctor(args: argparse.Namespace) -> int:
    from bridge.cli.doctor import run_doctor

    return asyncio.run(run_doctor(args))


def _agent_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--url", help="server URL (default: $ASKBRIDGE_URL or http://127.0.0.1:8765)")
    cmd.add_argument("--token", help="agent token (default: $ASKBRIDGE_TOKEN, else the one in "
                     "./.askbridge/ that `askbridge serve` made)")
    cmd.add_argument("--session", help="session key (default: $ASKBRIDGE_SESSION or main)")


def _ask_parser(sub: Any) -> None:
    ask = sub.add_parser("ask", help="ask from a shell and wait; prints the result JSON",
                         description="Ask and block. The question id and a waiting line go to "
                         "stderr, the result JSON to stdout. Exit 0 answered, 3 no answer, 2 "
                         "refused (bad call, token, 409), 1 server not reachable.")
    _agent_options(ask)
    ask.add_argument("question", nargs="?", help="the question (one sentence)")
    ask.add_argument("-o", "--option", action="append", help="an option (give it 2-4 times)")
    ask.add_argument("--header", default="Question", help="short chip label (default Question)")
    ask.add_argument("--id", default="answer", help="the answer key (default answer)")
    ask.add_argument("--multi", action="store_true", help="allow several options")
    ask.add_argument("--timeout", type=int, help="seconds to wait (30-3600, default 900)")
    ask.add_argument("--json", help="the whole request as JSON, {\"questions\": [...]} ('-' "
                     "reads stdin)")
    ask.set_defaults(func=agent_commands.cmd_ask)
    for name, func, text in (
            ("status", agent_commands.cmd_status, "show a question's status and result"),
            ("cancel", agent_commands.cmd_cancel,
             "cancel a pending question (an answer that already won stays)")):
        cmd = sub.add_parser(name, help=text, description=text)
        _agent_options(cmd)
        cmd.add_argument("id", help="the question id (q_…), as `askbridge ask` printed it")
        cmd.set_defaults(func=func)
    mcp = sub.add_parser("mcp", help="the stdio MCP server, for MCP hosts (Claude Code, …)",
                         description="The stdio MCP server with the ask_user tool; asks through "
                         "a running `askbridge serve`.")
    _agent_options(mcp)
    mcp.set_defaults(func=agent_commands.cmd_mcp)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="askbridge", description=__doc__)
    p.add_argument("--version", action="version",
                   version=f"askbridge {package_version()}")
    sub = p.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the bridge (embedded defaults without --config)")
    serve.add_argument("--config", help="TOML config file (default: $ASKBRIDGE_CONFIG; without "
                       "either, the embedded defaults)")
    serve.add_argument("--host", help="override server.host (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="override server.port (default 8765)")
    serve.add_argument("--log-level", default="info", choices=LOG_LEVELS,
                       help="how much to log on stderr (default info)")
    serve.set_defaults(func=cmd_serve)
    _ask_parser(sub)

    reply = sub.add_parser("reply", help="answer on the local console text channel")
    reply.add_argument("text", nargs="+", help="the reply, as a person would type it: 2, "
                       "production, 1,3, skip…")
    reply.add_argument("--channel", default="local", help="webhook channel name (default local)")
    reply.add_argument("--conversation", default="console",
                       help="conversation id (default console)")
    reply.add_argument("--sender", default="console", help="who is answering (default console)")
    reply.add_argument("--reply-to", help="the question id you are answering")
    reply.add_argument("--secret", help="the channel secret (default: "
                       "$ASKBRIDGE_LOCAL_WEBHOOK_SECRET or .askbridge/credentials.json)")
    reply.add_argument("--url", help="server URL (default: $ASKBRIDGE_URL or "
                       "http://127.0.0.1:8765)")
    reply.set_defaults(func=cmd_reply)

    doctor = sub.add_parser("doctor", help="check a config and each platform's credentials")
    doctor.add_argument("--config", help="TOML config file (default: $ASKBRIDGE_CONFIG)")
    doctor.set_defaults(func=cmd_doctor)
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    sys.exit(args.func(args))
