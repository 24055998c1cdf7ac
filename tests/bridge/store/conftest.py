"""The `store` fixture: every test taking it runs once per backend (SQLite, and PostgreSQL
when ASKBRIDGE_TEST_POSTGRES_URL is not `off`), each on a fresh database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bridge.store import SqliteStore, Store
from bridge.store.postgres_store import PostgresStore
from tests.pg import scratch_database, server_url

BACKENDS = ["sqlite", "postgres"] if server_url() else ["sqlite"]


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "sqlite":
        backend: Store = SqliteStore(str(tmp_path / "store.db"))
        await backend.open()
        yield backend
        await backend.close()
        return
    async with scratch_database() as url:
        backend = PostgresStore(url)
        await backend.open()
        yield backend
        await backend.close()
