"""Platform trouble, credentials (`askbridge doctor`) and config errors, with the real slack_sdk."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from adapters.slack import SlackConfig, create
from adapters.slack.adapter import SlackAdapter
from bridge import AdapterContext, ConfigError, DeliveryError
from tests.adapters.slack.support import answered, slack_config, slack_env
from tests.fakes.slack import APP_TOKEN, BOT_TOKEN, click_body, fake_slack
from tests.harness import make_config, running, until
from tests.samples import DEPLOY


async def test_rate_limit_is_waited_out_then_delivered(tmp_path: Path) -> None:
    async with fake_slack() as fake:
        retry_after: dict[str, str] = {"Retry-After": "0"}
        fake.fail("chat.postMessage", 429, "ratelimited", 1, **retry_after)
        async with running(slack_config(tmp_path, fake), slack_env()) as r, \
                r.client() as client:
            logs = capture_logs()
            seen = logs.__enter__()
            ask = asyncio.create_task(client.ask(DEPLOY))
            message = await fake.wait_posted(2)
            await fake.send_envelope("interactive", click_body(message, "Production"))
            result = await asyncio.wait_for(ask, 10)
            assert result.to_json() == answered(deploy_target=["Production"])
            assert len(fake.called("chat.postMessage")) == 2
            logs.__exit__(None, None, None)
            assert [(e["platform"], e["method"], e["retry_after"]) for e in seen
                    if e["event"] == "rate_limited"] == [("slack", "chat.postMessage", 0.0)]


async def test_a_burst_to_one_channel_is_paced_under_a_message_a_second(tmp_path: Path) -> None:
    """The fake refuses a second message in a channel within a second, as Slack does."""
    async with fake_slack() as fake, running(slack_config(tmp_path, fake), slack_env()) as r, \
            r.client() as client:
        asks = [asyncio.create_task(client.ask(DEPLOY, session=f"s{n}")) for n in range(4)]
        try:
            await until(lambda: len(fake.called("chat.postMessage")) == 4, timeout=30)
            assert fake.limits is not None and fake.limits.refused == 0, fake.refused
        finally:
            for ask in asks:
                ask.cancel()
            await asyncio.gather(*asks, return_exceptions=True)


async def test_a_refused_send_ends_the_question_undelivered(tmp_path: Path) -> None:
    async with fake_slack() as fake:
        fake.fail("chat.postMessage", error="channel_not_found")
        async with running(slack_config(tmp_path, fake), slack_env()) as r, \
                r.client() as client:
            result = await asyncio.wait_for(client.ask(DEPLOY), 10)
            assert result.to_json() == {"status": "no_answer", "reason": "undelivered"}
            view = (await client.timeline())[0]
            assert "channel_not_found" in str(view["deliveries"])


async def test_server_errors_are_retried(tmp_path: Path) -> None:
    async with fake_slack() as fake:
        adapter = SlackAdapter(SlackConfig(base_url=fake.base_url), BOT_TOKEN, APP_TOKEN)
        fake.fail("auth.test", status=503, error="service_unavailable")
        assert await adapter.check() == "Slack app askbot in Acme (socket mode)"
        assert len(fake.called("auth.test")) == 2


async def test_check_names_the_app_and_refuses_bad_tokens() -> None:
    async with fake_slack() as fake:
        good = SlackAdapter(SlackConfig(base_url=fake.base_url), BOT_TOKEN, APP_TOKEN)
        assert await good.check() == "Slack app askbot in Acme (socket mode)"
        bad_bot = SlackAdapter(SlackConfig(base_url=fake.base_url), "xoxb-wrong", APP_TOKEN)
        with pytest.raises(DeliveryError, match=r"bot token from \$SLACK_BOT_TOKEN"):
            await bad_bot.check()
        bad_app = SlackAdapter(SlackConfig(base_url=fake.base_url), BOT_TOKEN, "xapp-wrong")
        with pytest.raises(DeliveryError, match=r"app token from \$SLACK_APP_TOKEN"):
            await bad_app.check()
        http = SlackAdapter(SlackConfig(base_url=fake.base_url, mode="http"), BOT_TOKEN,
                            signing_secret="s")
        assert await http.check() == "Slack app askbot in Acme (http mode)"


def test_missing_secrets_are_config_errors(tmp_path: Path) -> None:
    env = slack_env()
    ctx = AdapterContext(make_config(tmp_path, slack={"mode": "http"}), env, "")
    assert isinstance(create(ctx), SlackAdapter)
    for var, section in [("SLACK_BOT_TOKEN", {}), ("SLACK_APP_TOKEN", {}),
                         ("SLACK_SIGNING_SECRET", {"mode": "http"})]:
        partial = {k: v for k, v in env.items() if k != var}
        with pytest.raises(ConfigError, match=var):
            create(AdapterContext(make_config(tmp_path, slack=section), partial, ""))
    with pytest.raises(ConfigError, match="mode"):
        create(AdapterContext(make_config(tmp_path, slack={"mode": "rtm"}), env, ""))
    assert create(AdapterContext(make_config(tmp_path), env, "")) is None
