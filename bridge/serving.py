"""uvicorn, told to drain the broker first when it stops, so a graceful stop cancels nothing."""

from __future__ import annotations

import socket

import uvicorn

from bridge.app import Bridge
from bridge.server import create_app


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
