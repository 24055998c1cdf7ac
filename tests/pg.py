"""PostgreSQL for tests: a throw-away database per test on ASKBRIDGE_TEST_POSTGRES_URL's server."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"


def server_url() -> str | None:
    """The PostgreSQL to test against; None when ASKBRIDGE_TEST_POSTGRES_URL is set to `off`."""
    url = os.environ.get("ASKBRIDGE_TEST_POSTGRES_URL", DEFAULT_URL)
    return None if url == "off" else url


@asynccontextmanager
async def scratch_database() -> AsyncIterator[str]:
    """CREATE DATABASE with a random name, yield its URL, DROP it after."""
    url = server_url()
    assert url is not None
    name = "askbridge_" + secrets.token_hex(6)
    admin = await asyncpg.connect(url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        base = url.rsplit("/", 1)[0]
        yield f"{base}/{name}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
