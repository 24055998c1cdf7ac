"""A single-select question answered with several picks (`1,2`) is refused: choose one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bridge import Parsed, parse_reply
from bridge.model.validation import parse_ask_request
from tests.adapters.webhook.support import DEPLOY, post_reply
from tests.harness import make_config, running, until


def deploy_questions() -> list:  # type: ignore[type-arg]
    return list(parse_ask_request(DEPLOY).questions)


@pytest.mark.parametrize("reply", ["1,2", "1, 3", "1 and 2", "staging, production",
                                   "Production and Canary", "2 3", "1,7"])
def test_several_picks_on_a_single_select_question_are_refused(reply: str) -> None:
    outcome = parse_reply(deploy_questions(), reply)
    assert isinstance(outcome, Parsed) and outcome.answers == {}
    assert "Choose one" in outcome.problems["deploy_target"]


@pytest.mark.parametrize(("reply", "expected"), [
    ("2", ["Production"]), ("1, 1", ["Staging (Recommended)"]),
    ("ship it on 2 servers", ["ship it on 2 servers"]), ("10 20", ["10 20"]),
])
def test_one_pick_or_free_text_is_still_an_answer(reply: str, expected: list[str]) -> None:
    outcome = parse_reply(deploy_questions(), reply)
    assert isinstance(outcome, Parsed) and outcome.answers == {"deploy_target": expected}


async def test_a_text_surface_refuses_1_2_and_keeps_the_question_pending(tmp_path: Path) -> None:
    async with running(make_config(tmp_path)) as r, r.client() as client, r.http() as http:
        ask = asyncio.create_task(client.ask(DEPLOY))
        pending = await until(lambda: r.bridge.store.pending_on_surface("webhook:sms:+100"))  # type: ignore[arg-type]
        refused = (await post_reply(http, "1,2")).json()
        assert refused["accepted"] is False and "Choose one" in refused["reply"]
        record = await r.bridge.store.get_question(pending[0].id)
        assert record is not None and record.pending
        assert (await post_reply(http, "2")).json()["accepted"] is True
        assert (await asyncio.wait_for(ask, 10)).answer_map() == {"deploy_target": ["Production"]}
