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
        ))
        self.bridge = bridge

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.bridge.broker.draining.set()
        await super().shutdown(sockets)
