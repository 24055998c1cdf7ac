"""A 2026-07-28 MCP host whose requests alternate between two replicas on one PostgreSQL
database: any replica serves any request, a retry's requestState included (DESIGN §13)."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import httpx
import httpx2
import mcp.types as mt
import pytest
from mcp.shared.exceptions import MCPError

from tests.bridge.mcp.new_host import answer, new_host
from tests.harness import AGENT_TOKEN, until
from tests.pg import scratch_database, server_url
from tests.samples import DEPLOY
from tests.scale.replicas import Replica, replicas, reply, write_config

pytestmark = pytest.mark.skipif(server_url() is None, reason="ASKBRIDGE_TEST_POSTGRES_URL=off")


class Alternating(httpx2.AsyncBaseTransport):
    """Sends each request to the next replica in turn, as a load balancer without stickiness."""

    def __init__(self, group: list[Replica]) -> None:
        self.group = group
        self.inner = httpx2.AsyncHTTPTransport()
        self.served: Counter[str] = Counter()
        self.turn = 0

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        replica = self.group[self.turn % len(self.group)]
        self.turn += 1
        self.served[replica.name] += 1
        request.url = request.url.copy_with(port=replica.port)
        request.headers["Host"] = request.url.netloc.decode()
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _pending(http: httpx.AsyncClient, replica: Replica) -> bool:
    line = await http.get(f"{replica.url}/v1/sessions/wait/timeline",
                          headers={"Authorization": f"Bearer {AGENT_TOKEN}"})
    return any(q["status"] == "pending" for q in line.json()["questions"])


async def test_a_host_alternating_between_replicas_asks_waits_and_gets_its_answer(
        tmp_path: Path) -> None:
    async with scratch_database() as url:
        config = write_config(tmp_path, url, ["webhook:sms:+100"], None)
        async with replicas(config, count=2) as group, httpx.AsyncClient(trust_env=False) as http:
            a, b = group
            # The host's form: the input_required from one replica, the retry on the other.
            forms: list[str] = []

            async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
                forms.append(params.message)
                return mt.ElicitResult(action="accept", content={"deploy_target": "Canary"})

            balancer = Alternating(group)
            async with new_host(f"{a.url}/mcp", form=form, transport=balancer,
                                session="form") as host:
                result = await host.call_tool("ask_user", DEPLOY)
            assert answer(result)["answers"]["answers"]["deploy_target"]["answers"] == ["Canary"]
            assert len(forms) == 1 and set(balancer.served) == {"A", "B"}

            # No form: the call waits on one replica, the host gives up on its side and calls
            # again on the other, which re-attaches; the person answers through either.
            balancer = Alternating(group)
            async with new_host(f"{a.url}/mcp", transport=balancer, session="wait") as host:
                with pytest.raises(MCPError):
                    await host.call_tool("ask_user", DEPLOY, read_timeout_seconds=1)
                call = asyncio.create_task(host.call_tool("ask_user", DEPLOY))
                await until(lambda: _pending(http, b), timeout=10)
                assert (await reply(http, b, "production"))["accepted"] is True
                result = await asyncio.wait_for(call, 15)
            assert answer(result)["answers"]["answers"]["deploy_target"]["answers"] == [
                "Production"]

            def counted() -> tuple[int, int]:  # the replicas' log lines arrive on their own
                return (sum(len(r.logged("question_created")) for r in group),
                        sum(len(r.logged("ask_reattached")) for r in group))

            # One ask per session; the re-issued call re-attached.
            await until(lambda: counted() == (2, 1), timeout=5)
