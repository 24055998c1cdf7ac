"""/mcp answers only its own pages and the configured origins: the DNS-rebinding rule.

A web page whose name was rebound to this server's address sends its own name as `Host`, and
its own origin as `Origin`: both are refused unless they are this server's (its loopback
names at its port, its public URL) or listed in `[mcp] allowed_origins`. A request without
`Origin` (not a browser: an MCP host, curl) passes that check. `Host` is checked when the
server listens on a loopback address or has a public URL: otherwise any name may reach it."""

from __future__ import annotations

from urllib.parse import urlsplit

from bridge.runtime.config import BridgeConfig

LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def _origin(url: str) -> str | None:
    parts = urlsplit(url.strip().rstrip("/"))
    if not parts.scheme or not parts.netloc:
        return None
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


class OriginGuard:
    def __init__(self, config: BridgeConfig) -> None:
        port = config.server.port
        own = [f"{scheme}://{name}:{port}" for name in LOOPBACK for scheme in ("http", "https")]
        own.append(config.base_url)
        origins = {o for o in (_origin(u) for u in [*own, *config.mcp.allowed_origins]) if o}
        self.origins = frozenset(origins)
        self.hosts = frozenset(urlsplit(o).netloc for o in origins)
        bound = config.server.host.strip("[]")
        self.check_host = port != 0 and (bound in ("127.0.0.1", "localhost", "::1") or bool(
            config.server.public_url))

    def refusal(self, headers: dict[str, str]) -> str | None:
        """Why the request must be refused (`Origin` or `Host` not ours), or None."""
        origin = headers.get("origin")
        if origin is not None and _origin(origin) not in self.origins:
            return (f"Origin {origin} may not call /mcp; add it to [mcp] allowed_origins if "
                    "it is yours.")
        host = headers.get("host", "").lower()
        if self.check_host and host and host not in self.hosts:
            return (f"Host {host} is not this server's name; reach /mcp at its own address, or "
                    "add the name's origin to [mcp] allowed_origins.")
        return None
