"""An MCP host built on the official SDK 1.x, run in its own venv (tests/bridge/mcp/old_host.py):
commands as JSON lines on stdin, events as JSON lines on stdout. It speaks only 2025-11-25, as
the hosts in the field that have not moved to 2026-07-28.

Not imported by the tests: it runs under the 1.x venv's Python, where askbridge is not installed.
"""

import asyncio
import json
import sys
from datetime import timedelta

import httpx
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError


def say(**event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


async def main(config):
    lines = asyncio.Queue()
    replies = asyncio.Queue()
    loop = asyncio.get_running_loop()

    def read_stdin():
        for line in sys.stdin:
            loop.call_soon_threadsafe(lines.put_nowait, json.loads(line))
        loop.call_soon_threadsafe(lines.put_nowait, {"op": "close"})

    loop.run_in_executor(None, read_stdin)

    async def on_elicit(context, params):
        say(event="elicit", message=params.message, schema=params.requestedSchema)
        reply = await replies.get()
        return types.ElicitResult(action=reply["action"], content=reply.get("content"))

    async with connect(config) as (read, write, session_id):
        callback = on_elicit if config.get("elicit") else None
        async with ClientSession(read, write, elicitation_callback=callback) as s:
            info = (await s.initialize()).serverInfo
            say(event="ready", session_id=session_id(), name=info.name, version=info.version)
            calls = {}
            while True:
                command = await lines.get()
                op = command["op"]
                if op == "close":
                    break
                if op == "list":
                    tools = (await s.list_tools()).tools
                    say(event="tools", tools=[t.model_dump(mode="json", by_alias=True)
                                              for t in tools])
                elif op == "call":
                    tag = command["tag"]
                    calls[tag] = (s._request_id, asyncio.create_task(call(s, command)))
                    await asyncio.sleep(0)  # the request goes out (and takes its id) now
                elif op == "cancel":  # notifications/cancelled for the call, then stop waiting
                    request_id, task = calls[command["tag"]]
                    await s.send_notification(types.ClientNotification(types.CancelledNotification(
                        params=types.CancelledNotificationParams(requestId=request_id))))
                    task.cancel()
                    say(event="cancel_sent", tag=command["tag"])
                elif op == "abandon":  # stop waiting, tell the server nothing
                    calls[command["tag"]][1].cancel()
                    say(event="abandoned", tag=command["tag"])
                elif op == "elicit_reply":
                    replies.put_nowait(command)
    say(event="closed")


def connect(config):
    if config["transport"] == "stdio":
        return Stdio(config)
    return Http(config)


class Stdio:
    def __init__(self, config):
        params = StdioServerParameters(command=config["command"], args=config["args"],
                                       env=config["env"])
        self.inner = stdio_client(params)

    async def __aenter__(self):
        read, write = await self.inner.__aenter__()
        return read, write, lambda: None

    async def __aexit__(self, *exc):
        return await self.inner.__aexit__(*exc)


class Http:
    def __init__(self, config):
        headers = {"Authorization": f"Bearer {config['token']}"}
        if config.get("session"):
            headers["X-Askbridge-Session"] = config["session"]
        self.http = httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(30, read=60),
                                      trust_env=False)
        self.inner = streamable_http_client(config["url"], http_client=self.http,
                                            terminate_on_close=config.get("terminate", True))

    async def __aenter__(self):
        await self.http.__aenter__()
        return await self.inner.__aenter__()

    async def __aexit__(self, *exc):
        try:
            return await self.inner.__aexit__(*exc)
        finally:
            await self.http.__aexit__(*exc)


async def call(s, command):
    tag = command["tag"]

    async def progress(done, total, message):
        say(event="progress", tag=tag, progress=done, total=total, message=message)

    timeout = command.get("timeout")
    try:
        result = await s.call_tool(
            command["name"], command["args"], progress_callback=progress,
            read_timeout_seconds=timedelta(seconds=timeout) if timeout else None)
    except McpError as exc:
        say(event="error", tag=tag, error=str(exc))
        return
    say(event="result", tag=tag, result=result.model_dump(mode="json", by_alias=True))


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
