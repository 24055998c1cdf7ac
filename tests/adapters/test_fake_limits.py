"""The fake platforms refuse what breaks each platform's limits, as the real APIs do.

The native prompt cases in the contract suite go through these fakes, so a renderer that
overflowed a limit would fail there instead of passing silently.
"""

from __future__ import annotations

import httpx

from tests.fakes.discord import FakeDiscord
from tests.fakes.limits import SlidingWindows
from tests.fakes.slack import BOT_TOKEN, fake_slack
from tests.fakes.telegram import TOKEN, FakeTelegram, flood_limits


async def test_fakes_refuse_what_breaks_platform_limits() -> None:
    """The fakes answer as the real APIs do when a payload breaks a platform limit."""
    async with FakeTelegram() as tg, fake_slack() as slack, httpx.AsyncClient(
            trust_env=False) as http:
        send = f"{tg.base_url}{TOKEN}/sendMessage"
        long_data = {"inline_keyboard": [[{"text": "x", "callback_data": "a" * 65}]]}
        many = {"inline_keyboard": [[{"text": "x", "callback_data": "a"}]] * 101}
        for chat, (markup, error) in enumerate(((long_data, "BUTTON_DATA_INVALID"),
                                                (many, "BUTTONS_TOO_MUCH"))):
            answer = await http.post(send, json={"chat_id": chat + 1, "text": "t",
                                                 "reply_markup": markup})
            assert answer.status_code == 400 and error in answer.json()["description"]

        post = f"{slack.base_url}chat.postMessage"
        auth = {"Authorization": f"Bearer {BOT_TOKEN}"}
        section = {"type": "section", "text": {"type": "mrkdwn", "text": "x"}}
        boxes = {"type": "actions", "elements": [{"type": "checkboxes", "action_id": "a",
                                                 "options": [{"value": str(i)} for i in range(11)]}]}
        long_id = {"type": "actions", "elements": [{"type": "button", "action_id": "a" * 256}]}
        for n, blocks in enumerate(([section] * 51, [boxes], [long_id])):
            answer = await http.post(post, headers=auth, json={"channel": f"C{n}",
                                                               "blocks": blocks})
            assert answer.json() == {"ok": False, "error": "invalid_blocks"}

    discord = await FakeDiscord().start()
    try:
        async with httpx.AsyncClient(trust_env=False) as http:
            url = f"{discord.api_base}/channels/{discord.channel_id}/messages"
            auth = {"Authorization": f"Bot {discord.token}"}
            button = {"type": 2, "style": 2, "label": "x", "custom_id": "a"}
            select = {"type": 3, "custom_id": "s", "min_values": 1, "max_values": 1,
                      "options": [{"label": str(i), "value": str(i)} for i in range(26)]}
            for rows in ([{"type": 1, "components": [button]}] * 6,
                         [{"type": 1, "components": [select]}],
                         [{"type": 1, "components": [{**button, "custom_id": "c" * 101}]}]):
                answer = await http.post(url, headers=auth, json={"content": "x",
                                                                  "components": rows})
                assert answer.status_code == 400 and answer.json()["code"] == 50035
    finally:
        await discord.stop()


def test_telegrams_flood_limits_count_the_bot_the_chat_and_the_group() -> None:
    """30 a second per bot, 1 a second per chat, 20 a minute per group (on a clock of our own)."""
    windows = SlidingWindows()
    assert [windows.over(flood_limits(n), now=0.0) for n in range(1, 31)] == [None] * 30
    assert windows.over(flood_limits(31), now=0.5) == 0.5, "the bot's 31st within a second"
    assert windows.over(flood_limits(1), now=1.0) is None, "a chat again a second later"
    assert windows.over(flood_limits(1), now=1.5) == 0.5, "a chat twice within a second"
    group = [windows.over(flood_limits(-100), now=10.0 + n) for n in range(21)]
    assert group == [None] * 20 + [40.0], "a group's 21st within a minute waits for the 1st"
    assert windows.refused == 3


async def test_fakes_answer_too_many_requests_as_the_platforms_do() -> None:
    async with FakeTelegram() as tg, fake_slack() as slack, httpx.AsyncClient(
            trust_env=False) as http:
        send = f"{tg.base_url}{TOKEN}/sendMessage"
        answers = [await http.post(send, json={"chat_id": 7, "text": "t"}) for _ in range(2)]
        assert answers[0].status_code == 200 and answers[1].status_code == 429
        body = answers[1].json()
        assert body["error_code"] == 429 and body["parameters"]["retry_after"] == 1
        assert body["description"] == "Too Many Requests: retry after 1"
        assert tg.limits is not None and tg.limits.refused == 1 and len(tg.calls) == 1

        post = f"{slack.base_url}chat.postMessage"
        auth = {"Authorization": f"Bearer {BOT_TOKEN}"}
        answers = [await http.post(post, headers=auth, json={"channel": "C9", "text": "t"})
                   for _ in range(2)]
        assert answers[1].status_code == 429 and answers[1].headers["Retry-After"] == "1"
        assert answers[1].json() == {"ok": False, "error": "ratelimited"}
        assert slack.limits is not None and slack.limits.refused == 1
