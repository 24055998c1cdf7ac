"""Crash: SIGKILL the real `askbridge serve` with 1,000 questions pending and during answer bursts."""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from bridge.store.records import now_ms
from tests.fakes.gateway import gateway
from tests.fakes.telegram import TOKEN, FakeTelegram, payload
from tests.harness import WEBHOOK_SECRET, until
from tests.reliability.figures import Figures
from tests.reliability.server import Server, gather_limited
from tests.reliability.support import OPTIONS, answer_of, create, none_sending, record, reply

PENDING = 1000
ON_TELEGRAM = 20
ANSWERED_BEFORE = 100
OVERDUE = 50
OWNER = payload("user_owner")
CHAT = payload("chat_private_owner")


def config(gateway_url: str, telegram_base: str) -> dict[str, Any]:
    return {
        "agents": [
            {"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main",
             "surfaces": ["webhook:sms:+100"]},
            {"name": "phone", "token_env": "PHONE_TOKEN", "role": "main",
             "surfaces": [f"telegram:{CHAT['id']}"]},
        ],
        "webhooks": {"sms": {"secret_env": "HOOK_SECRET", "url": gateway_url,
                             "timeout_seconds": 5}},
        "telegram": {"token_env": "TELEGRAM_BOT_TOKEN", "base_url": telegram_base,
                     "poll_timeout": 1, "request_timeout": 5, "retry_base_seconds": 0.1,
                     "pace": False},  # 1,000 prompts to one chat: pacing is tested elsewhere
    }


ENV = {"PHONE_TOKEN": "phone-agent-token-0123456789", "TELEGRAM_BOT_TOKEN": TOKEN}


async def test_kill_with_1000_pending_loses_nothing(tmp_path: Path, figures: Figures) -> None:
    async with gateway(WEBHOOK_SECRET) as gw, FakeTelegram(max_poll=1.0, limits=False) as tg:
        server = Server(tmp_path, config(gw.url, tg.base_url), ENV)
        await server.start()
        try:
            await _scenario(server, gw, tg, figures)
        finally:
            await server.stop()


async def _scenario(server: Server, gw: Any, tg: FakeTelegram, figures: Figures) -> None:
    started = time.monotonic()
    async with server.http() as http, server.http(ENV["PHONE_TOKEN"]) as phone:
        # Answered before the kill: committed and acknowledged to the person.
        answered = await gather_limited(create(http, f"done-{i}") for i in range(ANSWERED_BEFORE))
        await until(lambda: len(gw.prompts()) >= ANSWERED_BEFORE, timeout=60)
        chosen = {q["id"]: random.randrange(3) for q in answered}
        acks = await gather_limited(reply(http, str(n + 1), qid) for qid, n in chosen.items())
        assert all(a.json()["accepted"] for a in acks), [a.text for a in acks][:3]

        # 1,000 pending across 1,000 sessions (one pending per session), 20 of them on Telegram.
        t0 = time.monotonic()
        pending = await gather_limited(
            [create(http, f"s-{i}") for i in range(PENDING - ON_TELEGRAM)]
            + [create(phone, f"tg-{i}") for i in range(ON_TELEGRAM)], limit=32)
        create_s = time.monotonic() - t0
        telegram_ids = {q["id"] for q in pending[-ON_TELEGRAM:]}
        expires = {q["id"]: q["expiresAt"] for q in pending}
        await until(lambda: len(tg.calls_of("sendMessage")) >= ON_TELEGRAM, timeout=60)
        sent = [m for m in tg.messages.values() if m.get("reply_markup")]
        assert len(sent) >= ON_TELEGRAM

        server.kill()
        await server.wait_dead()
        prompts_before = len(gw.prompts())

        # While it is down, 50 deadlines pass (edited in the store, as time would).
        overdue = [q["id"] for q in pending if q["id"] not in telegram_ids][:OVERDUE]
        for qid in overdue:
            server.sql("UPDATE questions SET expires_at = ? WHERE id = ?", (now_ms() - 1000, qid))
        t0 = time.monotonic()
        await server.start()
        restart_s = time.monotonic() - t0

        views = {q["id"]: v for q, v in zip(pending, await gather_limited(
            (record(phone if q["id"] in telegram_ids else http, q["id"]) for q in pending),
            limit=32), strict=True)}
        still = [qid for qid, v in views.items() if v["status"] == "pending"]
        expired = [qid for qid, v in views.items() if v.get("reason") == "expired"]
        assert sorted(expired) == sorted(overdue)
        assert len(still) == PENDING - OVERDUE
        assert all(views[qid]["expiresAt"] == expires[qid] for qid in still)

        after = await gather_limited(record(http, qid) for qid in chosen)
        kept = sum(answer_of(v) == [OPTIONS[chosen[v["id"]]]] for v in after)
        assert kept == ANSWERED_BEFORE

        # The overdue ones are finalized on their channel (a status post each).
        def finalized() -> bool:
            done = {p["questionId"] for p in gw.statuses()}
            return set(overdue) <= done
        await until(finalized, timeout=30)

        # Taps on Telegram buttons sent before the kill still answer their questions.
        for message in sent[:ON_TELEGRAM]:
            await tg.tap(message, OWNER, "Production")
        tapped = await until(lambda: _all_answered(phone, telegram_ids), timeout=60)
        await until(lambda: len(tg.calls_of("editMessageText")) >= ON_TELEGRAM, 30)
        edits = len(tg.calls_of("editMessageText"))

    figures.add("crash: 1,000 pending, SIGKILL, restart", pending=PENDING,
                created_per_s=round(PENDING / create_s), restart_s=round(restart_s, 2),
                still_pending=len(still), same_deadline=len(still),
                expired_at_start=len(expired), answers_kept=f"{kept}/{ANSWERED_BEFORE}",
                taps_after_restart=f"{len(tapped)}/{ON_TELEGRAM}",
                telegram_edits=edits, prompts_before_kill=prompts_before,
                wall_s=round(time.monotonic() - started, 1))


async def _all_answered(http: httpx.AsyncClient, ids: set[str]) -> list[str] | None:
    views = [await record(http, qid) for qid in ids]
    done = [v["id"] for v in views if answer_of(v) == ["Production"]]
    return done if len(done) == len(ids) else None


# -- kill at random points during a burst of answers ---------------------------------------

async def _burst(server: Server, questions: list[str], kills: int, figures: Figures,
                 label: str) -> None:
    rng = random.Random(int(os.environ.get("ASKBRIDGE_SEED", "7")))
    want = {qid: rng.randrange(3) for qid in questions}
    acknowledged: dict[str, str] = {}   # question → the label the person was told was recorded
    refused: dict[str, int] = {}
    lost_requests = 0
    rounds = 0
    while len(acknowledged) + len(refused) < len(questions) or rounds <= kills:
        todo = [q for q in questions if q not in acknowledged and q not in refused]
        rounds += 1
        if not todo and rounds > kills:
            break
        # Kill once a random share of this round's answers were acknowledged: mid-burst.
        kill_after = rng.randrange(1, max(2, len(todo) * 2 // 3))
        halfway = asyncio.Event()
        kill_at = [kill_after]
        async with server.http(timeout=10) as http:
            async def answer(qid: str, kill_at: list[int] = kill_at,
                             halfway: asyncio.Event = halfway,
                             http: httpx.AsyncClient = http) -> None:
                nonlocal lost_requests
                try:
                    r = await reply(http, str(want[qid] + 1), qid)
                except httpx.HTTPError:
                    lost_requests += 1  # no answer reached the person: they would send again
                    return
                assert r.status_code == 200, r.text
                body = r.json()
                if body["accepted"]:
                    assert qid not in acknowledged, "an answer was acknowledged twice"
                    acknowledged[qid] = OPTIONS[want[qid]]
                    kill_at[0] -= 1
                    if kill_at[0] <= 0:
                        halfway.set()
                else:  # already ended: committed before a kill whose ack never arrived
                    refused[qid] = refused.get(qid, 0) + 1
                    kill_at[0] -= 1
                    if kill_at[0] <= 0:
                        halfway.set()
            tasks = [asyncio.create_task(answer(q)) for q in todo]
            if rounds <= kills and tasks:
                mid = asyncio.create_task(halfway.wait())
                await asyncio.wait({mid, *tasks}, timeout=60,
                                   return_when=asyncio.FIRST_COMPLETED)
                mid.cancel()
                server.kill()
                await server.wait_dead()
            await asyncio.gather(*tasks)
        if rounds <= kills:
            await server.start()
    async with server.http() as http:
        views = await gather_limited(record(http, q) for q in questions)
    by_id = {v["id"]: v for v in views}
    for qid, label_told in acknowledged.items():
        assert answer_of(by_id[qid]) == [label_told], (qid, by_id[qid])
    for qid in refused:  # refused as ended: it was committed before a kill, with its answer
        assert answer_of(by_id[qid]) == [OPTIONS[want[qid]]], (qid, by_id[qid])
    assert all(v["status"] == "answered" for v in views)
    rows = server.sql("SELECT COUNT(*) FROM questions WHERE status = 'answered'")
    figures.add(label, questions=len(questions), kills=kills,
                acknowledged=len(acknowledged), committed_unacknowledged=len(refused),
                lost_requests_resent=lost_requests, answered_rows=rows[0][0],
                lost_answers=0, applied_twice=0)


async def _burst_scenario(tmp_path: Path, figures: Figures, count: int, kills: int,
                          label: str) -> None:
    async with gateway(WEBHOOK_SECRET) as gw, FakeTelegram(limits=False) as tg:
        server = Server(tmp_path, config(gw.url, tg.base_url), ENV)
        await server.start()
        try:
            async with server.http() as http:
                made = await gather_limited(create(http, f"b-{i}") for i in range(count))
            await until(lambda: len(gw.prompts()) >= count, timeout=120)
            async with server.http() as http:  # the gateway has them a moment before the store
                await until(lambda: none_sending(http, [q["id"] for q in made]), timeout=120)
            await _burst(server, [q["id"] for q in made], kills, figures, label)
            async with server.http() as http:
                views = await gather_limited(record(http, q["id"]) for q in made)
            unfinalized = [v["id"] for v in views if not all(d["finalized"]
                                                            for d in v["deliveries"])]
            statuses = {p["questionId"] for p in gw.statuses()}
            missing = [v["id"] for v in views if v["id"] not in statuses]
            figures.add(label + " (finalization)", unfinalized=len(unfinalized),
                        without_status_post=len(missing))
            assert not unfinalized and not missing
        finally:
            await server.stop()


async def test_kill_during_answer_burst(tmp_path: Path, figures: Figures) -> None:
    await _burst_scenario(tmp_path, figures, 300, 3, "crash: SIGKILL during answer burst")


@pytest.mark.soak
async def test_kill_during_answer_burst_soak(tmp_path: Path, figures: Figures) -> None:
    await _burst_scenario(tmp_path, figures, 3000, 10, "soak: SIGKILL during answer burst")
