"""The fake platforms refuse what breaks each platform's limits, as the real APIs do.

The native prompt cases in the contract suite go through these fakes, so a renderer that
overflowed a limit would fail there instead of passing silently.
"""

from __future__ import annotations

import httpx

from tests.fakes.discord import FakeDiscord
from tests.fakes.slack import BOT_TOKEN, fake_slack
from tests.fakes.telegram import TOKEN, FakeTelegram


async def test_fakes_refuse_what_breaks_platform_limits() -> None:
    """The fakes answer as the real APIs do when a payload breaks a platform limit."""
    async with FakeTelegram() as tg, fake_slack() as slack, httpx.AsyncClient(
            trust_env=False) as http:
        send = f"{tg.base_url}{TOKEN}/sendMessage"
        long_data = {"inline_keyboard": [[{"text": "x", "callback_data": "a" * 65}]]}
        many = {"inline_keyboard": [[{"text": "x", "callback_data": "a"}]] * 101}
        for markup, error in ((long_data, "BUTTON_DATA_INVALID"), (many, "BUTTONS_TOO_MUCH")):
            answer = await http.post(send, json={"chat_id": 1, "text": "t", "reply_markup": markup})
            assert answer.status_code == 400 and error in answer.json()["description"]

        post = f"{slack.base_url}chat.postMessage"
        auth = {"Authorization": f"Bearer {BOT_TOKEN}"}
        section = {"type": "section", "text": {"type": "mrkdwn", "text": "x"}}
        boxes = {"type": "actions", "elements": [{"type": "checkboxes", "action_id": "a",
                                                 "options": [{"value": str(i)} for i in range(11)]}]}
        long_id = {"type": "actions", "elements": [{"type": "button", "action_id": "a" * 256}]}
        for blocks in ([section] * 51, [boxes], [long_id]):
            answer = await http.post(post, headers=auth, json={"channel": "C1", "blocks": blocks})
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
