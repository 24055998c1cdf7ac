"""MCP streamable HTTP spoken as plain HTTP, for what the SDK client will not send (another
agent's token with a session id, a lone surrogate): initialize, then JSON-RPC posts."""

from __future__ import annotations

import json
from typing import Any

import httpx

PROTOCOL = "2025-06-18"
ACCEPT = "application/json, text/event-stream"


def headers(token: str, session_id: str | None = None) -> dict[str, str]:
    out = {"Authorization": f"Bearer {token}", "Accept": ACCEPT,
           "Content-Type": "application/json", "MCP-Protocol-Version": PROTOCOL}
    if session_id is not None:
        out["Mcp-Session-Id"] = session_id
    return out


async def open_session(http: httpx.AsyncClient, token: str,
                       capabilities: dict[str, Any] | None = None) -> str:
    """initialize + notifications/initialized with `token` (the host declaring `capabilities`);
    the session id the server gave."""
    response = await http.post("/mcp", headers=headers(token), json={
        "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL, "capabilities": capabilities or {},
            "clientInfo": {"name": "wire", "version": "1"}}})
    assert response.status_code == 200, response.text
    session_id = response.headers["mcp-session-id"]
    done = await http.post("/mcp", headers=headers(token, session_id),
                           json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert done.status_code == 202, done.text
    return session_id


def messages(response: httpx.Response) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a response, whether JSON or an event stream."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return [response.json()]
    return [json.loads(line[5:]) for line in response.text.splitlines()
            if line.startswith("data:") and line[5:].strip()]


def call(name: str, arguments: dict[str, Any], request_id: int = 1) -> bytes:
    """A tools/call body; a lone surrogate in `arguments` goes out as its \\u escape."""
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}}).encode()


async def rpc(http: httpx.AsyncClient, token: str, session_id: str, method: str,
              params: dict[str, Any], request_id: int = 1) -> dict[str, Any]:
    """One JSON-RPC request in the session; its response message (after any notifications)."""
    response = await http.post("/mcp", headers=headers(token, session_id), json={
        "jsonrpc": "2.0", "id": request_id, "method": method, "params": params}, timeout=60)
    assert response.status_code == 200, response.text
    return messages(response)[-1]


MODERN = "2026-07-28"


async def stateless(http: httpx.AsyncClient, token: str, method: str, params: dict[str, Any],
                    capabilities: dict[str, Any] | None = None, request_id: int = 1
                    ) -> dict[str, Any]:
    """One 2026-07-28 request (no session: the host's capabilities ride in `_meta`); its
    response message."""
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "wire", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": capabilities or {}}
    head = {"Authorization": f"Bearer {token}", "Accept": ACCEPT,
            "Content-Type": "application/json", "MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if "name" in params:  # the standard headers (SEP-2243) name the tool called
        head["Mcp-Name"] = params["name"]
    response = await http.post("/mcp", timeout=60, headers=head, json={
        "jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": meta}})
    assert response.status_code == 200, response.text
    return messages(response)[-1]
