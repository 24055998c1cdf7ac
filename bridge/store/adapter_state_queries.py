"""Adapters' own durable key/value state (sync positions, push subscriptions), as SQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from bridge.store.records import now_ms
from bridge.store.writes import Step, Write


class _Backend(Protocol):
    async def _write(self, write: Write) -> int: ...

    async def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]: ...


class AdapterStateQueries:
    """The `Store.state_*` methods for any SQL backend that provides `_write()` and `_rows()`."""

    async def state_get(self: _Backend, platform: str, key: str) -> str | None:
        rows = await self._rows(
            "SELECT value FROM adapter_state WHERE platform = ? AND key = ?", (platform, key))
        return str(rows[0][0]) if rows else None

    async def state_put(self: _Backend, platform: str, key: str, value: str) -> None:
        await self._write(Write(Step(
            "INSERT INTO adapter_state (platform, key, value, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (platform, key) DO UPDATE SET value = excluded.value, "
            "updated_at = excluded.updated_at", (platform, key, value, now_ms()))))

    async def state_put_new(self: _Backend, platform: str, key: str, value: str) -> str:
        """Store `value` unless `key` already has one; the value kept either way (the first
        writer wins, so replicas racing to make the same key all end up with one)."""
        await self._write(Write(Step(
            "INSERT INTO adapter_state (platform, key, value, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (platform, key) DO NOTHING", (platform, key, value, now_ms()))))
        rows = await self._rows(
            "SELECT value FROM adapter_state WHERE platform = ? AND key = ?", (platform, key))
        return str(rows[0][0])

    async def state_delete(self: _Backend, platform: str, key: str) -> bool:
        return await self._write(Write(Step(
            "DELETE FROM adapter_state WHERE platform = ? AND key = ?", (platform, key)))) > 0

    async def state_items(self: _Backend, platform: str, prefix: str = "") -> list[tuple[str, str]]:
        rows = await self._rows(
            "SELECT key, value FROM adapter_state WHERE platform = ? AND substr(key, 1, ?) = ? "
            "ORDER BY key", (platform, len(prefix), prefix))
        return [(str(k), str(v)) for k, v in rows]
