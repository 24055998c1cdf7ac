"""Where a question goes and as what: a surface's own locale, then the agent's."""

from __future__ import annotations

from pathlib import Path

from tests.samples import DEPLOY


async def test_a_channels_locale_wins_over_the_agents(tmp_path: Path) -> None:
    import asyncio

    from tests.adapters.webhook.support import post_reply
    from tests.fakes.gateway import gateway
    from tests.harness import WEBHOOK_SECRET, make_config, running, until

    async with gateway(WEBHOOK_SECRET) as gw:
        config = make_config(tmp_path, webhooks={"sms": {"secret_env": "HOOK_SECRET",
                                                         "url": gw.url, "locale": "id"}})
        assert config.agents[0].locale == "en"
        async with running(config) as r, r.client() as client, r.http() as http:
            ask = asyncio.create_task(client.ask(DEPLOY))
            prompt = (await until(gw.prompts))[0]
            assert "Kedaluwarsa pukul" in prompt["text"] and "Expires" not in prompt["text"]
            wrong = (await post_reply(http, "9")).json()
            assert wrong == {"accepted": False, "reply": "Deploy: Tidak ada pilihan 9: balas "
                             "dengan angka 1–3, teks pilihan, atau kata-kata Anda sendiri."}
            right = (await post_reply(http, "2")).json()
            assert right == {"accepted": True, "reply": "Terima kasih, tercatat: Production."}
            assert (await asyncio.wait_for(ask, 10)).answer_map() == {"deploy_target": ["Production"]}
            status = (await until(gw.statuses))[0]
            assert status["text"] == "Deploy: Dijawab: Production"
            late = (await post_reply(http, "1", replyTo=prompt["questionId"])).json()
            assert late == {"accepted": False, "reply": "Pertanyaan ini sudah berakhir."}
