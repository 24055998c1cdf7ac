"""Telegram across restarts, in webhook mode, with a bad token, and under `askbridge doctor`."""

from __future__ import annotations

import asyncio
import ssl
from typing import Any

import pytest

from adapters.telegram import create
from adapters.telegram.webhook import SECRET_HEADER, WEBHOOK_PATH
from bridge import AdapterContext, ConfigError, DeliveryError, client_tls
from tests.adapters.telegram.support import DM, OWNER, Tg, answered, delivered, deploy, edited, keyboard
from tests.fakes.telegram import FakeTelegram
from tests.harness import running

HOOK: dict[str, Any] = {"mode": "webhook", "webhook_secret_env": "TG_HOOK_SECRET",
        "webhook_url": "https://bot.example/telegram/webhook"}


async def test_buttons_sent_before_a_restart_still_answer(tg: Tg, fake: FakeTelegram) -> None:
    config = tg.config(DM["id"])
    async with running(config, tg.env) as r, r.client() as client:
        qid = (await client.create(deploy()))["id"]
        prompt = await fake.sent(DM["id"], keyboard)
        await delivered(r, DM["id"])

    async with running(config, tg.env) as r, r.client() as client:
        assert (await client.question(qid))["status"] == "pending"
        await fake.tap(prompt, OWNER, "Canary")
        result = await client.result(qid, wait=10)
        assert result is not None
        assert result.to_json() == answered("deploy_target", "Canary")
        assert (await edited(fake, prompt))["text"].endswith("\n\nAnswered: Canary")


async def test_webhook_mode_checks_the_secret(tg: Tg, fake: FakeTelegram) -> None:
    async with running(tg.config(DM["id"], **HOOK), tg.env) as r, r.client() as client, \
            r.http() as http:
        hook = fake.calls_of("setWebhook")
        assert hook and hook[0]["secret_token"] == "hook-secret-1"
        qid = (await client.create(deploy()))["id"]
        prompt = await fake.sent(DM["id"], keyboard)
        update = {**fake.callback_update(prompt, OWNER, fake.button_data(prompt, "Production")),
                  "update_id": 900}

        wrong = await http.post(WEBHOOK_PATH, json=update, headers={SECRET_HEADER: "guess"})
        assert wrong.status_code == 403
        assert (await http.post(WEBHOOK_PATH, json=update)).status_code == 403
        assert (await client.question(qid))["status"] == "pending"

        right = await http.post(WEBHOOK_PATH, json=update,
                                headers={SECRET_HEADER: "hook-secret-1"})
        assert right.status_code == 200
        result = await client.result(qid, wait=10)
        assert result is not None
        assert result.to_json() == answered("deploy_target", "Production")
        assert fake.calls_of("getUpdates") == []


async def test_a_token_refused_at_start_ends_the_start_naming_its_variable(
    tg: Tg, fake: FakeTelegram,
) -> None:
    env = {**tg.env, "TELEGRAM_BOT_TOKEN": "999:not-the-token"}
    with pytest.raises(ConfigError) as refused:
        async with running(tg.config(DM["id"]), env):
            pass
    assert "rejected the bot token in $TELEGRAM_BOT_TOKEN" in str(refused.value)
    assert "not-the-token" not in str(refused.value)


async def test_a_token_revoked_while_running_is_named_as_the_cause(
    tg: Tg, fake: FakeTelegram,
) -> None:
    async with running(tg.config(DM["id"]), tg.env) as r, r.client() as client:
        fake.token = "999:revoked-meanwhile"  # @BotFather /revoke: every call now gets a 401
        result = await asyncio.wait_for(client.ask(deploy()), 10)
        delivery = (await client.timeline())[0]["deliveries"][0]
    assert result.to_json() == {"status": "no_answer", "reason": "undelivered"}
    assert "rejected the bot token in $TELEGRAM_BOT_TOKEN" in delivery["error"]


async def test_doctor_check_names_the_bot_or_the_problem(tg: Tg, fake: FakeTelegram) -> None:
    good = create(AdapterContext(config=tg.config(DM["id"]), env=tg.env, base_url=""))
    assert good is not None
    assert await good.check() == "Telegram bot @askbridge_test_bot"

    env = {**tg.env, "TELEGRAM_BOT_TOKEN": "999:not-the-token"}
    bad = create(AdapterContext(config=tg.config(DM["id"]), env=env, base_url=""))
    assert bad is not None
    with pytest.raises(DeliveryError, match="rejected the bot token"):
        await bad.check()


def test_config_problems_are_sentences(tg: Tg) -> None:
    env = {k: v for k, v in tg.env.items() if k != "TELEGRAM_BOT_TOKEN"}
    with pytest.raises(ConfigError, match=r"\$TELEGRAM_BOT_TOKEN, which is not set"):
        create(AdapterContext(config=tg.config(DM["id"]), env=env, base_url=""))
    with pytest.raises(ConfigError, match="webhook_secret_env"):
        create(AdapterContext(config=tg.config(DM["id"], mode="webhook"), env=tg.env,
                              base_url=""))
    with pytest.raises(ConfigError, match="mode"):
        create(AdapterContext(config=tg.config(DM["id"], mode="push"), env=tg.env, base_url=""))


async def test_every_https_client_reads_the_ca_bundle_once(
        tg: Tg, fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each httpx client would build its own TLS context, reading the whole CA bundle (25-45 ms
    and most of a megabyte apiece): Telegram's two, the webhook channel's, the doctor's and
    the agents' Python client share the process's one."""
    reads: list[Any] = []
    read = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        reads.append(args or kwargs)
        read(self, *args, **kwargs)
    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    client_tls.cache_clear()
    config = tg.config(DM["id"])
    async with running(config, tg.env) as r, r.client() as client:  # with the `sms` webhook
        await client.create(deploy())
        await fake.sent(DM["id"], keyboard)
        await delivered(r, DM["id"])
        doctor = create(AdapterContext(config=config, env=tg.env, base_url=""))
        assert doctor is not None and await doctor.check() == "Telegram bot @askbridge_test_bot"
    assert len(reads) == 1


async def test_a_secret_header_that_is_not_ascii_is_refused_like_a_wrong_one(
        tg: Tg, fake: FakeTelegram) -> None:
    async with running(tg.config(DM["id"], **HOOK), tg.env) as r, r.http() as http:
        update = {"update_id": 901}
        wrong = await http.post(WEBHOOK_PATH, json=update, headers={SECRET_HEADER: "guess"})
        for odd in ("hook-secret-é".encode(), "ключ".encode(), b"\xff\xfe"):
            refused = await http.post(WEBHOOK_PATH, json=update, headers={SECRET_HEADER.encode(): odd})
            assert (refused.status_code, refused.json()) == (wrong.status_code, wrong.json())
