"""`askbridge audit verify|export` against the real server: an intact chain exits 0, a tampered
row exits 1 naming its entry; the export is every entry as JSON lines or CSV."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import sqlite3
from pathlib import Path

from tests.adapters.webhook.support import post_reply
from tests.bridge.shell import run
from tests.harness import AGENT_TOKEN, SUB_TOKEN, Running, make_config, running, until


def env(r: Running, token: str = AGENT_TOKEN) -> dict[str, str]:
    return {"ASKBRIDGE_URL": r.url, "ASKBRIDGE_TOKEN": token}


async def approved_once(r: Running) -> None:
    """One approval, asked and approved: `requested`, `voted`, `decided` in the log."""
    async with r.client() as client:
        asking = asyncio.create_task(client.approve("Deploy 1432 to prod", tool="Bash",
                                                    arguments={"command": "./deploy.sh"}))
        await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        async with r.http() as http:
            assert (await post_reply(http, "approve")).json()["accepted"] is True
        assert (await asking).status == "approved"


async def test_verify_names_the_first_tampered_entry(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        await approved_once(r)
        code, out, err = await run(tmp_path, "audit", "verify", **env(r))
        assert code == 0, err
        assert "intact: 3 entries" in out
        with sqlite3.connect(tmp_path / "askbridge.db") as db:
            db.execute("UPDATE audit SET data = ? WHERE seq = 2", ('{"decision":"reject"}',))
        code, out, _ = await run(tmp_path, "audit", "verify", **env(r))
        assert code == 1
        assert "broken at entry 2" in out and "changed" in out
        code, _, err = await run(tmp_path, "audit", "verify", **env(r, SUB_TOKEN))
        assert code == 2 and "main agents" in err


async def test_export_as_json_lines_and_csv(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r:
        await approved_once(r)
        code, out, err = await run(tmp_path, "audit", "export", **env(r))
        assert code == 0, err
        lines = [json.loads(line) for line in out.splitlines()]
        assert [e["kind"] for e in lines] == ["requested", "voted", "decided"]
        assert [e["seq"] for e in lines] == [1, 2, 3]
        assert lines[1]["prev"] == lines[0]["hash"] and lines[0]["time"].endswith("Z")
        code, out, _ = await run(tmp_path, "audit", "export", "--format", "csv", **env(r))
        rows = list(csv.DictReader(io.StringIO(out)))
        assert code == 0 and [row["kind"] for row in rows] == ["requested", "voted", "decided"]
        assert json.loads(rows[0]["data"]) == lines[0]["data"]
        assert rows[2]["hash"] == lines[2]["hash"]
        code, out, _ = await run(tmp_path, "audit", "export", "--since", "2999-01-01T00:00:00Z",
                                 **env(r))
        assert code == 0 and out == ""
        code, _, err = await run(tmp_path, "audit", "export", "--since", "yesterday", **env(r))
        assert code == 2 and "ISO 8601" in err
