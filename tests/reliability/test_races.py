"""Duplicates and races against the real server: one resolution, one winner, one terminal state."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

from bridge.store.records import now_ms
from tests.harness import until
from tests.reliability.figures import Figures
from tests.reliability.platforms import (
    CHAT,
    ENV,
    discord_click,
    platforms,
    post_slack,
    post_telegram,
    slack_click,
    telegram_tap,
)
from tests.reliability.server import gather_limited
from tests.reliability.support import create, delivered, ended, none_sending, question, record, reply

TIMES = 50
RACED = 200
DISCORD_CHANNEL = 3001
MULTI = [f"telegram:{CHAT['id']}", "slack:C0123", f"discord:{DISCORD_CHANNEL}", "webhook:sms:+100"]


def resolved_logs(logs: str, question_id: str) -> int:
    return sum(1 for line in logs.splitlines()
               if '"question_resolved"' in line and question_id in line)


async def test_duplicate_platform_events_resolve_once(tmp_path: Path, figures: Figures) -> None:
    async with platforms(tmp_path, MULTI) as p, p.server.http(ENV["MULTI_TOKEN"]) as http:
        counts: dict[str, Any] = {}
        # Telegram: the same update (same update_id) delivered 50 times to the webhook.
        q = await create(http, "tg-dup")
        message = await p.tg.sent(CHAT["id"], lambda m: bool(m.get("reply_markup")))
        await until(lambda: delivered(http, q["id"], "telegram"), timeout=20)
        body = telegram_tap(p.tg, message, "Production", update_id=777)
        responses = await asyncio.gather(*(post_telegram(http, body) for _ in range(TIMES)))
        assert {r.status_code for r in responses} == {200}
        await until(lambda: len(p.tg.calls_of("answerCallbackQuery")) >= TIMES, timeout=30)
        view = await until(lambda: ended(http, q["id"]), timeout=20)
        assert view["result"]["answers"]["answers"]["target"]["answers"] == ["Production"]
        counts["telegram"] = resolved_logs(p.server.logs(), q["id"])

        # Slack: the same signed block_actions request 50 times.
        await http.post(f"/v1/questions/{q['id']}/cancel")
        q = await create(http, "slack-dup")
        message = await p.slack.wait_posted(2)
        await until(lambda: delivered(http, q["id"], "slack"), timeout=20)
        raw = slack_click(message, "Canary")
        responses = await asyncio.gather(*(post_slack(http, raw) for _ in range(TIMES)))
        assert {r.status_code for r in responses} == {200}
        view = await until(lambda: ended(http, q["id"]), timeout=20)
        assert view["result"]["answers"]["answers"]["target"]["answers"] == ["Canary"]
        counts["slack"] = resolved_logs(p.server.logs(), q["id"])

        # Discord: the same INTERACTION_CREATE (same id and token) dispatched 50 times.
        q = await create(http, "discord-dup")
        await until(lambda: delivered(http, q["id"], "discord"), timeout=30)
        sent = p.discord.in_channel(DISCORD_CHANNEL)[-1]
        button = next(b for row in sent["components"] for b in row["components"]
                      if b["label"] == "Production")
        event = discord_click(p.discord, sent, button["custom_id"])
        for _ in range(TIMES):
            await p.discord.dispatch("INTERACTION_CREATE", event)
        view = await until(lambda: ended(http, q["id"]), timeout=20)
        assert view["result"]["answers"]["answers"]["target"]["answers"] == ["Production"]
        # The 49 duplicates arrive over the gateway after the first one won: once the bot has
        # answered every one of them, none can resolve or edit anything any more.
        await until(lambda: p.discord.answered.count(event["id"]) >= TIMES, timeout=30)
        assert resolved_logs(p.server.logs(), q["id"]) <= 1
        assert len([e for e in p.discord.edits if e[0] == sent["id"]]) <= 1
        counts["discord"] = resolved_logs(p.server.logs(), q["id"])

        # Webhook channel: the same signed reply 50 times.
        q = await create(http, "hook-dup")
        await until(lambda: delivered(http, q["id"], "webhook"), timeout=20)
        replies = await asyncio.gather(*(reply(http, "2", q["id"]) for _ in range(TIMES)))
        accepted = sum(r.json()["accepted"] for r in replies)
        assert accepted == 1
        counts["webhook"] = resolved_logs(p.server.logs(), q["id"])
        edits = [e for e in p.discord.edits if e[0] == sent["id"]]
    assert counts == {"telegram": 1, "slack": 1, "discord": 1, "webhook": 1}
    assert len(edits) == 1
    figures.add("duplicates: same platform event x50", deliveries_each=TIMES,
                resolutions=counts, webhook_accepted=accepted, discord_message_edits=len(edits))


async def test_200_questions_answered_at_once_from_three_surfaces(tmp_path: Path,
                                                                  figures: Figures) -> None:
    three = [f"telegram:{CHAT['id']}", "slack:C0123", "webhook:sms:+100"]
    async with platforms(tmp_path, three) as p, p.server.http(ENV["MULTI_TOKEN"]) as http:
        t0 = time.monotonic()
        made = await gather_limited(create(http, f"race-{i}") for i in range(RACED))
        ids = [q["id"] for q in made]

        async def all_delivered() -> bool:
            views = await gather_limited(record(http, qid) for qid in ids)
            return all(d["state"] == "delivered" for v in views for d in v["deliveries"])
        await until(all_delivered, timeout=120, interval=0.5)
        setup_s = time.monotonic() - t0
        tg_msgs = {_tg_question(m): m for m in p.tg.messages.values() if m.get("reply_markup")}
        slack_msgs = {_slack_question(m): m for m in p.slack.posted()}
        hook_acks: dict[str, bool] = {}

        async def three_at_once(i: int, qid: str) -> None:
            async def by_hook() -> None:
                hook_acks[qid] = (await reply(http, "3", qid)).json()["accepted"]
            await asyncio.gather(
                post_telegram(http, telegram_tap(p.tg, tg_msgs[qid], "Production", 10_000 + i)),
                post_slack(http, slack_click(slack_msgs[qid], "Staging (Recommended)")),
                by_hook())
        t0 = time.monotonic()
        await gather_limited((three_at_once(i, q) for i, q in enumerate(ids)), limit=24)

        async def all_finalized() -> list[dict[str, Any]] | None:
            views = await gather_limited(record(http, qid) for qid in ids)
            done = all(v["status"] == "answered" and all(d["finalized"] for d in v["deliveries"])
                       for v in views)
            return views if done else None
        views = await until(all_finalized, timeout=120, interval=0.5)
        race_s = time.monotonic() - t0
        # Every tap has been answered (Telegram answers each; Slack tells each loser it ended),
        # so none of them is still on its way to a second finalization.
        slack_won = sum(v["answeredBy"]["surface"].startswith("slack:") for v in views)
        await until(lambda: len(p.tg.calls_of("answerCallbackQuery")) >= RACED
                    and len(p.slack.called("chat.postEphemeral")) >= RACED - slack_won, timeout=60)
    winners = {"telegram": 0, "slack": 0, "webhook": 0}
    expected = {"telegram": "Production", "slack": "Staging (Recommended)", "webhook": "Canary"}
    for v in views:
        platform = v["answeredBy"]["surface"].split(":")[0]
        winners[platform] += 1
        assert v["result"]["answers"]["answers"]["target"]["answers"] == [expected[platform]]
        assert hook_acks[v["id"]] == (platform == "webhook")  # told "recorded" only if it won
    tg_edits = [c for c in p.tg.calls_of("editMessageText")]
    slack_updates = p.slack.called("chat.update")
    statuses = [s for s in p.gw.statuses() if s["questionId"] in set(ids)]
    assert len(tg_edits) == RACED and len(slack_updates) == RACED and len(statuses) == RACED
    for log_line_count in (resolved_logs(p.server.logs(), qid) for qid in ids):
        assert log_line_count == 1
    figures.add("races: 200 questions x 3 surfaces at once", questions=RACED,
                winners=winners, resolutions=RACED, finalized_per_surface=RACED,
                setup_s=round(setup_s, 1), race_and_finalize_s=round(race_s, 1))


def _tg_question(message: dict[str, Any]) -> str:
    data = message["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    return str(data.split(":")[1])


def _slack_question(message: dict[str, Any]) -> str:
    for block in message["blocks"]:
        if block["type"] == "actions":
            return str(block["elements"][0]["action_id"].split(":")[1])
    raise AssertionError("a Slack prompt without buttons")


async def test_answer_cancel_and_expiry_racing(tmp_path: Path, figures: Figures) -> None:
    """Deadlines arrive while an answer and a cancel for each question are in flight."""
    from tests.fakes.gateway import gateway
    from tests.harness import WEBHOOK_SECRET
    from tests.reliability.server import Server

    count = 120
    async with gateway(WEBHOOK_SECRET) as gw:
        server = Server(tmp_path, {
            "agents": [{"name": "assistant", "token_env": "AGENT_TOKEN", "role": "main",
                        "surfaces": ["webhook:sms:+100"]}],
            "webhooks": {"sms": {"secret_env": "HOOK_SECRET", "url": gw.url}}})
        await server.start()
        try:
            async with server.http() as http:
                made = await gather_limited(create(http, f"r-{i}", question(60))
                                            for i in range(count))
                ids = [q["id"] for q in made]
                await until(lambda: len(gw.prompts()) >= count, timeout=60)
                await until(lambda: none_sending(http, ids), timeout=60)
            await server.stop()
            base = now_ms() + 8000  # deadlines 30 ms apart, each met by its own race
            deadlines = {qid: base + n * 30 for n, qid in enumerate(ids)}
            for qid, at in deadlines.items():
                server.sql("UPDATE questions SET expires_at = ? WHERE id = ?", (at, qid))
            await server.start()
            async with server.http() as http:
                outcome = await _race(http, deadlines)
                views = {v["id"]: v for v in await gather_limited(record(http, q) for q in ids)}
        finally:
            await server.stop()
    kinds = {"answered": 0, "cancelled": 0, "expired": 0}
    for qid, (acked, cancel_result) in outcome.items():
        v = views[qid]
        final = v["result"]
        kinds["answered" if final["status"] == "answered" else final["reason"]] += 1
        assert cancel_result == final, (qid, cancel_result, final)  # cancel reports the truth
        assert acked == (final["status"] == "answered"), (qid, acked, final)
    figures.add("races: answer vs cancel vs expiry", questions=count, terminal_states=kinds,
                inconsistent=0)


async def _race(http: Any, deadlines: dict[str, int]) -> dict[str, tuple[bool, dict[str, Any]]]:
    rng = random.Random(11)

    async def both(qid: str) -> tuple[str, tuple[bool, dict[str, Any]]]:
        # Arrive just before or just after this question's deadline: the race is the point.
        await asyncio.sleep(max(0.0, (deadlines[qid] - now_ms()) / 1000 + rng.uniform(-0.03, 0.02)))
        answer, cancel = await asyncio.gather(reply(http, "1", qid),
                                              http.post(f"/v1/questions/{qid}/cancel"))
        assert cancel.status_code == 200, cancel.text
        return qid, (bool(answer.json()["accepted"]), cancel.json())
    return dict(await asyncio.gather(*(both(q) for q in deadlines)))
