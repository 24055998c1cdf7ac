"""uvicorn, told to drain the broker first when it stops, so a graceful stop cancels nothing."""

from __future__ import annotations

import errno
import socket

import uvicorn

from bridge.composition import Bridge
from bridge.http.app import create_app
from bridge.i18n import tr


def port_problem(host: str, port: int) -> str | None:
    """Why `host:port` cannot be listened on, or None; checked before anything starts."""
    if port == 0:
        return None
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port,
                                                             type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        return tr("en", "cannot listen on {host}: {why}; check server.host or --host.",
                  host=host, why=exc.strerror)
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return tr("en", "port {port} on {host} is already in use (another askbridge?); "
                          "stop that process or choose another port with --port.",
                          port=port, host=host)
            return tr("en", "cannot listen on {host}:{port}: {why}.", host=host, port=port,
                      why=exc.strerror)
    return None


class BridgeServer(uvicorn.Server):
    def __init__(self, bridge: Bridge, host: str, port: int) -> None:
        super().__init__(uvicorn.Config(
            create_app(bridge), host=host, port=port, log_config=None, access_log=False,
            lifespan="on", timeout_graceful_shutdown=5,
            # Longer than load balancers' and clients' idle pools (60 s is common), so the
            # server never closes a kept-alive connection just as a client reuses it.
            timeout_keep_alive=75,
        ))
        self.bridge = bridge

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.bridge.broker.draining.set()
        await super().shutdown(sockets)
