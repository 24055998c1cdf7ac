"""Three real `askbridge serve` replicas on one PostgreSQL database (DESIGN §3, docs/deploy.md)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import Counter
from pathlib import Path

import asyncpg
import httpx
import pytest

from bridge.agent.client import AskClient
from tests.adapters.telegram.support import DM, OWNER, deploy, keyboard
from tests.fakes.telegram import FakeTelegram
from tests.harness import AGENT_TOKEN, until
from tests.pg import scratch_database, server_url
from tests.scale.replicas import Replica, replicas, reply, write_config

pytestmark = pytest.mark.skipif(server_url() is None, reason="ASKBRIDGE_TEST_POSTGRES_URL=off")

def leaders(group: list[Replica]) -> list[Replica]:
    return [r for r in group if r.proc and r.proc.returncode is None and r.logged("leader_acquired")
            and len(r.logged("leader_acquired")) > len(r.logged("leader_lost"))]


async def test_replicas_share_asks_answers_and_the_telegram_connection(tmp_path: Path) -> None:
    async with FakeTelegram(limits=False) as fake, scratch_database() as url:
        fake.add_chat(DM)
        config = write_config(tmp_path, url, [f"telegram:{DM['id']}", "webhook:sms:+100"],
                              fake.base_url)
        async with replicas(config) as group, httpx.AsyncClient(trust_env=False) as http:
            a, b, _ = group
            lead = (await until(lambda: leaders(group), timeout=15))
            assert len(lead) == 1, "exactly one replica holds the long connections"

            # Ask on A, answer through B: the agent waiting on A hears it at once.
            async with AskClient(a.url, AGENT_TOKEN, "s0") as agent:
                ask = asyncio.create_task(agent.ask(deploy()))
                await fake.sent(DM["id"], keyboard)
                started = time.monotonic()
                await until(lambda: _pending_here(http, b), timeout=10)
                # The text channel's prompt is out too (A's console): a person replies to it.
                await until(lambda: any("[prompt → +100 · " in line for line in a.out),
                            timeout=10)
                answered = await reply(http, b, "2")
                assert answered["accepted"] is True, answered
                result = await asyncio.wait_for(ask, 10)
                woke = time.monotonic() - started
            assert result.answer_map() == {"deploy_target": ["Production"]}
            print(f"\nask on A, answer on B: agent woke {woke * 1000:.0f} ms after the reply began")

            # A prompt goes out while the first leader holds Telegram; then the leader dies.
            leader = lead[0]
            survivors = [r for r in group if r is not leader]
            async with AskClient(survivors[0].url, AGENT_TOKEN, "s1") as agent:
                qid = (await agent.create(deploy()))["id"]
                prompt = await fake.sent(DM["id"], lambda m: keyboard(m) and qid in json.dumps(
                    m["reply_markup"]))
                killed = time.monotonic()
                await leader.kill()
                new = await until(lambda: leaders(survivors), timeout=15)
                took = time.monotonic() - killed
                assert len(new) == 1
                await fake.tap(prompt, OWNER, "Canary")  # a button sent before the takeover
                tapped = await agent.result(qid, wait=15)
            assert tapped is not None and tapped.answer_map() == {"deploy_target": ["Canary"]}
            print(f"leader {leader.name} killed; {new[0].name} took Telegram in {took:.2f} s; "
                  "a tap on the old prompt answered")


async def _pending_here(http: httpx.AsyncClient, replica: Replica) -> bool:
    line = await http.get(f"{replica.url}/v1/sessions/s0/timeline",
                          headers={"Authorization": f"Bearer {AGENT_TOKEN}"})
    return any(q["status"] == "pending" for q in line.json()["questions"])


async def test_killed_replica_leaves_questions_to_the_others(tmp_path: Path) -> None:
    async with scratch_database() as url:
        config = write_config(tmp_path, url, ["webhook:sms:+100"], None)
        async with replicas(config) as group, httpx.AsyncClient(trust_env=False) as http:
            a, b, c = group
            async with AskClient(a.url, AGENT_TOKEN) as agent:
                answer_me = (await agent.create(deploy(), session="k1"))["id"]
                expire_me = (await agent.create(deploy(), session="k2"))["id"]
            await a.kill()
            assert (await reply(http, b, "3", reply_to=answer_me))["accepted"] is True
            db = await asyncpg.connect(url)
            await db.execute("UPDATE questions SET expires_at = $1 WHERE id = $2",
                             int(time.time() * 1000) - 1000, expire_me)
            await db.close()
            await c.stop()
            await c.start()  # a deadline that passed is expired at once by whoever starts
            async with AskClient(b.url, AGENT_TOKEN) as agent:
                answered = await agent.result(answer_me, wait=10)
                expired = await agent.result(expire_me, wait=10)
            assert answered is not None and answered.answer_map() == {"deploy_target": ["Canary"]}
            assert expired is not None and expired.reason == "expired"


async def test_a_thousand_answers_with_duplicates_resolve_and_finalize_once(
    tmp_path: Path,
) -> None:
    count = 1000
    async with scratch_database() as url:
        config = write_config(tmp_path, url, ["webhook:sms:+100"], None)
        async with replicas(config) as group:
            limits = httpx.Limits(max_connections=60)
            async with httpx.AsyncClient(trust_env=False, limits=limits, timeout=60) as http:
                started = time.monotonic()
                ids = await _create_many(http, group, count)
                created = time.monotonic() - started
                gate = asyncio.Semaphore(60)

                async def answer(qid: str, replica: Replica) -> bool:
                    async with gate:
                        return bool((await reply(http, replica, "1", reply_to=qid))["accepted"])

                started = time.monotonic()
                results = await asyncio.gather(*(answer(q, r) for q in ids for r in group))
                answered_in = time.monotonic() - started
            accepted = Counter(q for q, ok in zip([q for q in ids for _ in group], results,
                                                  strict=True) if ok)
            assert len(accepted) == count and set(accepted.values()) == {1}
            db = await asyncpg.connect(url)
            statuses = Counter(r["status"] for r in await db.fetch("SELECT status FROM questions"))
            unfinalized = await db.fetchval("SELECT COUNT(*) FROM deliveries WHERE finalized = 0")
            await db.close()
            assert statuses == {"answered": count} and unfinalized == 0

            async def all_finalized() -> bool:
                return len(_status_posts(group)) >= count

            await until(all_finalized, timeout=30)
        posts = _status_posts(group)
        assert len(posts) == count and set(Counter(posts).values()) == {1}
        print(f"\n{count} questions over 3 replicas in {created:.1f} s; {count * 3} answers "
              f"(each sent to every replica) in {answered_in:.1f} s: {count} resolutions, "
              f"{count} finalizations")


async def _create_many(http: httpx.AsyncClient, group: list[Replica], count: int) -> list[str]:
    gate = asyncio.Semaphore(60)

    async def create(i: int) -> str:
        async with gate:
            replica = group[i % len(group)]
            response = await http.post(f"{replica.url}/v1/sessions/s{i}/questions",
                                       json=deploy(), headers={
                                           "Authorization": f"Bearer {AGENT_TOKEN}"})
            assert response.status_code == 202, response.text
            return str(response.json()["id"])

    return list(await asyncio.gather(*(create(i) for i in range(count))))


def _status_posts(group: list[Replica]) -> list[str]:
    """Question ids of the status (finalization) blocks the console channel printed."""
    found = []
    for replica in group:
        for line in replica.out:
            match = re.match(r"^\[status → \+100 · (q_\w+)\]$", line)
            if match:
                found.append(match.group(1))
    return found
