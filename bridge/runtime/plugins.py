"""Adapter discovery: the `askbridge.adapters` entry points named in pyproject.toml."""

from __future__ import annotations

from importlib.metadata import entry_points

import structlog

from bridge.model.adapter import AdapterPlugin

log = structlog.get_logger("askbridge.plugins")
GROUP = "askbridge.adapters"


def discover() -> list[AdapterPlugin]:
    """Every installed adapter plugin, in name order."""
    plugins: list[AdapterPlugin] = []
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        try:
            plugin = ep.load()
        except (ImportError, AttributeError) as exc:
            log.warning("plugin_unavailable", name=ep.name, error=str(exc))
            continue
        if not isinstance(plugin, AdapterPlugin):
            log.warning("plugin_ignored", name=ep.name, reason="not an AdapterPlugin")
            continue
        plugins.append(plugin)
    return plugins
