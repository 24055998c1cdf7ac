"""What an adapter factory may read of the configuration: its own tables, raw, and the surfaces
agents ask on. The core never interprets an adapter's table; the adapter's model does."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class AdapterConfig(Protocol):
    """The configuration as an adapter sees it (`bridge.config.BridgeConfig` is one)."""

    def section(self, name: str) -> Mapping[str, Any] | None:
        """A top-level table an adapter owns (`telegram`, `webhooks`), raw; None when absent."""
        ...

    def agent_surfaces(self) -> list[str]:
        """Every surface some agent lists (`slack:C0123/1700000000.000100`), in config order."""
        ...
