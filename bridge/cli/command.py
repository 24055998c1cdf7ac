"""The `askbridge` command's parser, and the operator's commands (serve, doctor)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from bridge.agent.client import DEFAULT_URL
from bridge.cli import (
    agent_commands,
    approval_commands,
    audit_commands,
    hook_command,
    reply_command,
    waiting_commands,
)
from bridge.runtime.config import (
    BridgeConfig,
    ConfigError,
    default_env,
    embedded_defaults,
    load_config,
    web_ui,
)
from bridge.runtime.version import package_version
from bridge.text.i18n import tr

EXIT_USAGE = 2
LOG_LEVELS = ("debug", "info", "warning", "error")


def _welcome(config: BridgeConfig, env: dict[str, str], created: bool, reveal: bool) -> str:
    """What `serve` prints on its embedded defaults; the token and the login link only to a
    terminal (a log file is read by more people, for longer), else where to read them."""
    agent = config.agents[0]
    token = env[agent.token_env]
    web = env.get(web_ui(config)[1], "")
    # The hints must work as printed: away from the default address they say where to go.
    url = "" if config.base_url == DEFAULT_URL else f" --url {config.base_url}"
    kept = Path(config.data_dir) / "credentials.json"
    hidden = tr("en", "in {file}", file=kept)
    lines = [
        "askbridge is running on its embedded defaults.",
        f"  API:        {config.base_url}  (OpenAPI at /openapi.json)",
        f"  Web UI:     {config.base_url}/?token={web if reveal else '<web_token ' + hidden + '>'}",
        f"  Agent:      {agent.name} (role main), token "
        f"{token if reveal else '<agent_token ' + hidden + '>'}",
        f"  Ask:        askbridge ask{url} \"Deploy where?\" -o \"Staging (Recommended)\" "
        "-o Production",
        f"  Answer:     askbridge reply{url} 1   (the console text channel), or in the web UI",
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
    banner = (_banner(config, env, path, reveal) if path else
              _welcome(config, env, created, reveal))
    server = BridgeServer(bridge, config.server.host, config.server.port,
                          listening=lambda: print(banner, flush=True))
    settle_gc()
    problem = server.run_bridge()
    if problem:
        print(f"askbridge: {problem}", file=sys.stderr)
        return EXIT_USAGE
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from bridge.cli.doctor import run_doctor
    from bridge.runtime.logs import configure

    configure("warning")  # the libraries' lines in the one format, their noise left out
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
    for name, func, text in (
            ("pending", waiting_commands.cmd_pending,
             "list this agent's questions still waiting for an answer, newest first"),
            ("history", waiting_commands.cmd_history,
             "show a session's questions and how each ended, newest first")):
        cmd = sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        _agent_options(cmd)
        cmd.add_argument("--json", action="store_true", help="print the records as JSON")
        if name == "history":
            cmd.add_argument("--limit", type=int, default=20,
                             help="at most this many questions (default 20)")
        cmd.set_defaults(func=func)
    mcp = sub.add_parser("mcp", help="the stdio MCP server, for MCP hosts (Claude Code, …)",
                         description="The stdio MCP server with the ask_user tool; asks through "
                         "a running `askbridge serve`.")
    _agent_options(mcp)
    mcp.set_defaults(func=agent_commands.cmd_mcp)
    approval_commands.add_parsers(sub, _agent_options)
    hook_command.add_parsers(sub, _agent_options)
    audit_commands.add_parsers(sub, _agent_options)


DESCRIPTION = ("askbridge: an AI agent asks a person structured questions and waits; the person "
               "answers from the web UI, a chat app or the console. Run `askbridge serve`, "
               "then ask with `askbridge ask`, an MCP host (`askbridge mcp`) or the HTTP API.")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="askbridge", description=DESCRIPTION)
    p.add_argument("--version", action="version",
                   version=f"askbridge {package_version()}")
    sub = p.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the bridge (embedded defaults without --config)",
                           description="Run the server: the HTTP API, /mcp, the web UI and "
                           "every configured platform. Without a config it uses the embedded "
                           "defaults (SQLite under .askbridge/, 127.0.0.1:8765, one main agent) "
                           "and prints how to ask and answer.")
    serve.add_argument("--config", help="TOML config file (default: $ASKBRIDGE_CONFIG; without "
                       "either, the embedded defaults)")
    serve.add_argument("--host", help="override server.host (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="override server.port (default 8765)")
    serve.add_argument("--log-level", default="info", choices=LOG_LEVELS,
                       help="how much to log on stderr (default info)")
    serve.set_defaults(func=cmd_serve)
    _ask_parser(sub)

    reply = sub.add_parser("reply", help="answer on the local console text channel",
                           description="Answer a question shown on the server's console, as a "
                           "person would type it. With several questions waiting, say which "
                           "with --reply-to. Exit 0 taken, 2 refused, 1 server not reachable.")
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
    reply.set_defaults(func=reply_command.cmd_reply)

    doctor = sub.add_parser("doctor", help="check a config and each platform's credentials",
                            description="Read the config, then ask each configured platform "
                                        "whether it accepts its credentials; one line per check. "
                                        "Exit 0 when all pass.")
    doctor.add_argument("--config", help="TOML config file (default: $ASKBRIDGE_CONFIG)")
    doctor.set_defaults(func=cmd_doctor)
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    sys.exit(args.func(args))
