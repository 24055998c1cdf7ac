"""Durable state behind the broker: the `Store` protocol and its backends."""

from bridge.store.protocol import Store
from bridge.store.records import (
    AnsweredBy,
    DeliveryRecord,
    PendingConflict,
    QuestionRecord,
    Resolution,
    SessionInfo,
    iso,
    now_ms,
)
from bridge.store.sqlite_store import SqliteStore


def open_store(path: str | None = None, url: str | None = None) -> Store:
    """The configured backend: PostgreSQL when `url` is set, else SQLite at `path`."""
    if url:
        from bridge.store.postgres_store import PostgresStore

        return PostgresStore(url)
    return SqliteStore(path or ".askbridge/askbridge.db")


__all__ = [
    "AnsweredBy",
    "DeliveryRecord",
    "PendingConflict",
    "QuestionRecord",
    "Resolution",
    "SessionInfo",
    "SqliteStore",
    "Store",
    "iso",
    "now_ms",
    "open_store",
]
