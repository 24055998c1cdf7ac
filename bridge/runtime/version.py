"""askbridge's installed version, as `--version` and MCP `serverInfo` name it."""

from __future__ import annotations

from importlib import metadata


def package_version() -> str:
    try:
        return metadata.version("askbridge")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "0.0.0+unknown"
