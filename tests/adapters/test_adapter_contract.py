"""The adapter contract every adapter passes, each against its own fake platform server.

Whatever the platform: the adapter is an `Adapter`, declares capabilities as data, delivers a
prompt and hands the broker a message reference, finalizes that message exactly once when the
question ends, and reports an unusable surface as `DeliveryError` — never another exception.
It does so in every locale: an Indonesian prompt and its status line carry no English chrome,
and Indonesian text replies (`1 dan 3`, `lewati`) resolve on every text surface.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from starlette.routing import BaseRoute

from bridge import Adapter, BridgeConfig, ButtonsLayout, Capabilities, DeliveryError, Routed, SurfaceId
from bridge.agent.client import AskClient
from bridge.core.surfaces import asked
from bridge.text.rendering import build_prompt
from tests.adapters.drivers import Driver, driver
from tests.adapters.webhook.support import post_reply
from tests.fakes.discord import FakeDiscord
from tests.fakes.gateway import gateway
from tests.fakes.slack import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, fake_slack, message_body
from tests.fakes.telegram import TOKEN, FakeTelegram, payload
from tests.harness import WEBHOOK_SECRET, Running, base_env, make_config, running, until
from tests.samples import CHECKS, DEPLOY

ENGLISH_CHROME = re.compile(
    r"\b(Skip|skip|Other|Expires|Reply|reply|Answered|Cancelled|Skipped|Expired|Thanks|"
    r"choose|own answer|Submit|Done|Back|Next|questions?)\b")
"""Words askbridge writes in English; none may show in an Indonesian prompt or status line
(the agent's own words in these tests avoid them)."""
VISIBLE = {"text", "content", "label", "title", "placeholder", "description"}


@dataclass
class Rig:
    platform: str
    surface: str
    bad_surface: str
    sections: dict[str, Any]
    env: dict[str, str]
    edits: Callable[[], int]
    """How many message edits (finalizations) the fake platform has seen."""
    shown: Callable[[], list[Any]] = list
    """Every prompt payload the fake platform received."""
    finals: Callable[[], list[Any]] = list
    """Every finalization (edit or status) payload it received."""
    reply: Callable[[Running, str], Awaitable[None]] | None = None
    """Send a text reply as a person allowed to answer (text surfaces only)."""


@asynccontextmanager
async def webhook_rig() -> AsyncIterator[Rig]:
    async def reply(r: Running, text: str) -> None:
        async with r.http() as http:
            (await post_reply(http, text)).raise_for_status()

    async with gateway(WEBHOOK_SECRET) as gw:
        yield Rig("webhook", "webhook:sms:+100", "webhook:nowhere:+1",
                  {"webhooks": {"sms": {"secret_env": "HOOK_SECRET", "url": gw.url}}},
                  base_env(), lambda: len(gw.statuses()), gw.prompts, gw.statuses, reply)


@asynccontextmanager
async def telegram_rig() -> AsyncIterator[Rig]:
    chat = payload("chat_private_owner")
    async with FakeTelegram() as fake:
        fake.add_chat(chat)

        async def reply(r: Running, text: str) -> None:
            await fake.say(chat, payload("user_owner"), text)

        yield Rig("telegram", f"telegram:{chat['id']}", "telegram:not-a-chat",
                  {"telegram": {"base_url": fake.base_url, "poll_timeout": 1,
                                "retry_base_seconds": 0.05}},
                  {**base_env(), "TELEGRAM_BOT_TOKEN": TOKEN},
                  lambda: len(fake.calls_of("editMessageText")),
                  lambda: fake.calls_of("sendMessage"), lambda: fake.calls_of("editMessageText"),
                  reply)


@asynccontextmanager
async def discord_rig() -> AsyncIterator[Rig]:
    fake = await FakeDiscord().start()
    person = 4001

    async def reply(r: Running, text: str) -> None:
        prompt = fake.in_channel(fake.channel_id)[-1]
        await fake.user_message(fake.channel_id, person, text, reply_to=prompt)

    try:
        yield Rig("discord", f"discord:{fake.channel_id}", "discord:general",
                  {"discord": {"api_base": fake.api_base, "gateway_url": fake.gateway_url,
                               "guild_ready_timeout": 0.05, "answerers": [person]}},
                  {**base_env(), "DISCORD_BOT_TOKEN": fake.token}, lambda: len(fake.edits),
                  lambda: list(fake.messages.values()), lambda: [b for _, b in fake.edits],
                  reply)
    finally:
        await fake.stop()


@asynccontextmanager
async def slack_rig() -> AsyncIterator[Rig]:
    async with fake_slack() as fake:
        async def reply(r: Running, text: str) -> None:
            await fake.wait_connected()
            await fake.send_envelope("events_api", message_body("C0123", text))

        yield Rig("slack", "slack:C0123", "slack:",
                  {"slack": {"base_url": fake.base_url, "connect_timeout_seconds": 5,
                             "answerers": ["U0123"]}},
                  {**base_env(), "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_APP_TOKEN": APP_TOKEN,
                   "SLACK_SIGNING_SECRET": SIGNING_SECRET},
                  lambda: len(fake.called("chat.update")), lambda: fake.called("chat.postMessage"),
                  lambda: fake.called("chat.update"), reply)


@asynccontextmanager
async def matrix_rig() -> AsyncIterator[Rig]:
    """Not a fake: the process's real Synapse (started once), a fresh room and bot login."""
    from tests.adapters.matrix.support import Person, make_room
    from tests.adapters.matrix.synapse import homeserver

    hs = await asyncio.to_thread(homeserver)
    bot, person = Person(hs, hs.users["askbot"]), Person(hs, hs.users["person"])
    room = await make_room(person, bot)
    token = await asyncio.to_thread(hs.login, "askbot")

    def from_bot() -> list[dict[str, Any]]:
        with hs.http(person.user.token) as http:
            chunk = http.get(f"/_matrix/client/v3/rooms/{quote(room)}/messages",
                             params={"dir": "f", "limit": 500}).json()["chunk"]
        return [e for e in chunk if e["sender"] == bot.id and e["type"] == "m.room.message"]

    def replaced(e: dict[str, Any]) -> bool:
        return bool(e["content"].get("m.relates_to", {}).get("rel_type") == "m.replace")

    def edits() -> int:  # the edits (m.replace) of the bot's messages, as the person sees them
        return sum(1 for e in from_bot() if replaced(e))

    def shown() -> list[Any]:  # what the person reads: message bodies, as {"text": …}
        return [{"text": e["content"].get("body", "")} for e in from_bot() if not replaced(e)]

    def finals() -> list[Any]:
        return [{"text": e["content"].get("m.new_content", {}).get("body", "")}
                for e in from_bot() if replaced(e)]

    async def reply(r: Running, text: str) -> None:
        await person.say(room, text)

    yield Rig("matrix", f"matrix:{room}", "matrix:#not-a-room-id:test.local",
              {"matrix": {"homeserver": hs.url, "user_id": bot.id, "answerers": [person.id],
                          "sync_timeout": 5}},
              {**base_env(), "MATRIX_ACCESS_TOKEN": token}, edits, shown, finals, reply)


@asynccontextmanager
async def email_rig() -> AsyncIterator[Rig]:
    """Not fakes: aiosmtpd (STARTTLS, AUTH) keeps what is sent; the process's Dovecot holds the
    person's replies. Mail cannot be edited: with `notify_final` a status mail is the edit."""
    from adapters.email.htmltext import html_text
    from tests.adapters.email.rig import PERSON, mail_rig, part, watching

    async with mail_rig(notify_final=True) as rig:
        def sent(*kinds: str) -> list[Any]:
            return [m for m in rig.outbox.to(PERSON) if m["X-Askbridge-Kind"] in kinds]

        def shown() -> list[Any]:  # what the person reads: the text part, the HTML's words
            texts = [{"text": part(m)} for m in sent("prompt", "reminder")]
            return texts + [{"text": html_text(part(m, "html"))} for m in sent("prompt")]

        def finals() -> list[Any]:
            return [{"text": m.get_content()} for m in sent("status")]

        async def reply(r: Running, text: str) -> None:
            await watching(r)
            await rig.reply(text)

        yield Rig("email", f"email:{PERSON}", "email:not-an-address", rig.section, rig.env,
                  lambda: len(sent("status")), shown, finals, reply)


@asynccontextmanager
async def web_rig() -> AsyncIterator[Rig]:
    yield Rig("web", "web", "web", {}, base_env(), lambda: 0)


RIGS = {"webhook": webhook_rig, "telegram": telegram_rig, "discord": discord_rig,
        "slack": slack_rig, "web": web_rig, "matrix": matrix_rig, "email": email_rig}


def speaking(config: BridgeConfig, locale: str) -> BridgeConfig:
    """The config with every agent writing in `locale` (platform sections set none)."""
    agents = [a.model_copy(update={"locale": locale}) for a in config.agents]
    return config.model_copy(update={"agents": agents})


def visible(payload: Any) -> list[str]:
    """Every piece of text a person sees in a platform payload (keyboards, blocks, modals)."""
    if isinstance(payload, dict):
        found: list[str] = []
        for key, value in payload.items():
            if key == "reply_markup" and isinstance(value, str):  # Telegram sends it as JSON
                value = json.loads(value)
            if key in VISIBLE and isinstance(value, str):
                found.append(value)
            else:
                found += visible(value)
        return found
    if isinstance(payload, list):
        return [text for item in payload for text in visible(item)]
    return []


def check_words(texts: list[str], locale: str, english: str, indonesian: str) -> None:
    shown = "\n".join(texts)
    if locale == "id":
        assert indonesian in shown.casefold(), shown
        assert not ENGLISH_CHROME.search(shown), f"English chrome in an id message: {shown}"
    else:
        assert english in shown.casefold(), shown


@pytest.mark.parametrize("locale", ["en", "id"])
@pytest.mark.parametrize("platform", sorted(RIGS))
async def test_adapter_contract(platform: str, locale: str, tmp_path: Path) -> None:
    async with RIGS[platform]() as rig:
        config = speaking(make_config(tmp_path, surfaces=[rig.surface], **rig.sections), locale)
        async with running(config, rig.env) as r, r.client() as client:
            adapter = r.bridge.adapters[rig.platform]
            assert isinstance(adapter, Adapter) and adapter.platform == rig.platform
            caps = adapter.capabilities(SurfaceId(rig.surface))
            assert isinstance(caps, Capabilities) and caps.max_len >= 160
            if isinstance(adapter, Routed):
                assert all(isinstance(route, BaseRoute) for route in adapter.routes())

            qid = (await client.create(DEPLOY))["id"]
            delivered = await until(lambda: _delivered(r, qid))
            assert isinstance(delivered.message_ref, str) and delivered.message_ref

            record = await r.bridge.store.get_question(qid)
            assert record is not None
            prompt = build_prompt(asked(record), caps.buttons, r.bridge.broker.surfaces.locale_for(
                record.agent, SurfaceId(rig.surface)))
            buttons = prompt.layout.buttons if isinstance(prompt.layout, ButtonsLayout) else None
            assert (buttons is not None) == caps.buttons and prompt.locale == locale
            check_words([prompt.text, *(b.label for b in buttons or ())], locale,
                        "expires", "kedaluwarsa")
            if rig.platform != "web":  # the page writes its own words (tests/adapters/web)
                check_words(visible(rig.shown()), locale, "skip", "lewati")
            if rig.platform != "web":  # the web surface has no addresses to get wrong
                with pytest.raises(DeliveryError) as refused:
                    await adapter.deliver(SurfaceId(rig.bad_surface), prompt)
                assert str(refused.value), "a DeliveryError says why"

            edits_before = rig.edits()
            assert (await client.cancel(qid)).reason == "cancelled"
            await until(lambda: _finalized(r, qid))
            if rig.platform != "web":
                await until(lambda: rig.edits() > edits_before)
                assert rig.edits() == edits_before + 1, "finalized exactly once"
                check_words(visible(rig.finals()), locale, "cancelled", "dibatalkan")


async def _delivered(r: Any, qid: str) -> Any:
    rows = await r.bridge.store.deliveries(qid)
    return rows[0] if rows and rows[0].state == "delivered" else None


async def _finalized(r: Any, qid: str) -> bool:
    return all(d.finalized for d in await r.bridge.store.deliveries(qid))


TEXT_SURFACES = sorted(name for name in RIGS if name != "web")


@pytest.mark.parametrize("platform", TEXT_SURFACES)
async def test_indonesian_text_replies_resolve(platform: str, tmp_path: Path) -> None:
    """`1 dan 3` picks two options and `lewati` skips, whatever the surface's own locale."""
    async with RIGS[platform]() as rig:
        assert rig.reply is not None
        config = make_config(tmp_path, surfaces=[rig.surface], **rig.sections)
        async with running(config, rig.env) as r, r.client() as client:
            ask = asyncio.create_task(client.ask({"questions": [CHECKS]}))
            await until(lambda: _delivered_to(r, rig.surface))
            await rig.reply(r, "1 dan 3")
            result = await asyncio.wait_for(ask, 10)
            assert result.answer_map() == {"checks": ["Lint", "Build"]}

            ask = asyncio.create_task(client.ask(DEPLOY))
            await until(lambda: _delivered_to(r, rig.surface))
            await rig.reply(r, "lewati")
            result = await asyncio.wait_for(ask, 10)
            assert (result.status, result.reason) == ("no_answer", "skipped")


async def _delivered_to(r: Any, surface: str) -> bool:
    return bool(await r.bridge.store.pending_on_surface(surface, "delivered"))


# a long prompt is split, never clipped ----------------------------------------------------------

LONG: dict[str, Any] = {"questions": [{
    "id": f"part_{n}", "header": f"Part {n}",
    "question": f"Question {n} asks " + " ".join(f"w{n}x{k}" for k in range(80)),
    "options": [{"label": f"Option {n}{i} " + "l" * 50,
                 "description": f"Note {n}{i} " + "d" * 180} for i in range(4)]}
    for n in range(3)]}


def numbered(sections: dict[str, Any]) -> dict[str, Any]:
    """The rig's sections with numbered text everywhere, and a short webhook channel."""
    if "webhooks" in sections:
        return {"webhooks": {name: {**c, "max_len": 1000}
                             for name, c in sections["webhooks"].items()}}
    if "email" in sections:  # e-mail is numbered text already
        return sections
    return {name: {**section, "native": "single"} for name, section in sections.items()}


@pytest.mark.parametrize("platform", TEXT_SURFACES)
async def test_a_long_prompt_arrives_whole_in_several_messages(platform: str,
                                                               tmp_path: Path) -> None:
    async with RIGS[platform]() as rig:
        config = make_config(tmp_path, surfaces=[rig.surface], **numbered(rig.sections))
        async with running(config, rig.env) as r, r.client() as client:
            qid = (await client.create(LONG))["id"]
            await until(lambda: _delivered(r, qid))
            caps = r.bridge.adapters[platform].capabilities(SurfaceId(rig.surface))
            texts = visible(rig.shown())
            if platform not in ("matrix", "email"):  # they take more than any ask is long
                assert len(texts) > 1, "longer than the surface takes: several messages"
            assert all(len(text) <= caps.max_len for text in texts)
            shown = "\n".join(texts)
            for q in LONG["questions"]:
                assert q["question"] in shown
                assert all(o["label"] in shown and o["description"] in shown
                           for o in q["options"])
            edits_before = rig.edits()
            assert (await client.cancel(qid)).reason == "cancelled"
            await until(lambda: rig.edits() > edits_before)
            assert rig.edits() == edits_before + 1, "the message with the controls, once"
            assert "Cancelled" in "\n".join(visible(rig.finals()))


# native prompts: multiSelect and several questions answered by taps ---------------------------

NATIVE = ["discord", "slack", "telegram"]
ZONES = {"id": "zones", "header": "Zones", "question": "Which zones should get it?",
         "multiSelect": True,
         "options": [{"label": z} for z in ("North", "South", "East", "West")]}
ENV = {"id": "env", "header": "Env", "question": "Which environment?",
       "options": [{"label": "Staging"}, {"label": "Production"}]}


def answered(**answers: list[str]) -> dict[str, Any]:
    return {"status": "answered",
            "answers": {"answers": {k: {"answers": v} for k, v in answers.items()}}}


@asynccontextmanager
async def native_rig(platform: str, tmp: Path,
                     native: str = "all") -> AsyncIterator[tuple[Driver, Any, AskClient]]:
    """A person at `platform`'s fake, and a bridge whose agent asks there."""
    async with driver(platform) as person:
        config = make_config(tmp, surfaces=[person.surface], **person.section(native))
        async with running(config, person.env) as r, r.client() as client:
            yield person, r, client


async def _kept(r: Any, qid: str) -> dict[str, list[str]]:
    return {k: v for k, v in (await r.bridge.store.partial(qid)).items() if v}


@pytest.mark.parametrize("platform", NATIVE)
async def test_native_toggles_then_done_answer_the_agent(platform: str, tmp_path: Path) -> None:
    async with native_rig(platform, tmp_path) as (person, r, client):
        qid = (await client.create({"questions": [ZONES]}))["id"]
        await person.prompt()
        assert {"North", "South", "East", "West", "Other…", "Skip"} <= {
            c.split(" ", 1)[-1] for c in person.controls()}
        for label in ("North", "East", "South", "East"):  # East on, then off again
            assert await person.pick(0, label) is None
        assert await person.chosen(0) == ["North", "South"]  # shown back in the message
        assert await _kept(r, qid) == {"zones": ["North", "South"]}
        assert await client.result(qid) is None, "nothing reaches the agent before Done"

        told = await person.submit()  # Slack says it only in the edited prompt
        assert told in ("Thanks, recorded: North, South.", None)
        result = await client.result(qid, wait=10)
        assert result is not None and result.to_json() == answered(zones=["North", "South"])
        await until(lambda: not person.controls())
        assert "Answered: North, South" in person.text()


@pytest.mark.parametrize("platform", NATIVE)
async def test_native_taps_combine_with_a_text_reply(platform: str, tmp_path: Path) -> None:
    async with native_rig(platform, tmp_path) as (person, _r, client):
        qid = (await client.create({"questions": [ENV, ZONES]}))["id"]
        await person.prompt()
        assert await person.pick(1, "West") is None
        assert await person.pick(1, "North") is None
        await person.say("production")  # the one question still open
        result = await client.result(qid, wait=10)
        assert result is not None
        assert result.to_json() == answered(env=["Production"], zones=["North", "West"])
        await until(lambda: not person.controls())
        assert "Answered: Production, North, West" in person.text()


@pytest.mark.parametrize("platform", NATIVE)
async def test_native_selection_survives_a_restart(platform: str, tmp_path: Path) -> None:
    async with driver(platform) as person:
        config = make_config(tmp_path, surfaces=[person.surface], **person.section("all"))
        async with running(config, person.env) as r, r.client() as client:
            qid = (await client.create({"questions": [ENV, ZONES]}))["id"]
            await person.prompt()
            assert await person.pick(1, "North") is None
        async with running(config, person.env) as r, r.client() as client:
            assert await person.pick(1, "South") is None
            assert await person.chosen(1) == ["North", "South"]
            assert await person.pick(0, "Staging") is None
            assert await person.submit() in ("Thanks, recorded: Staging, North, South.", None)
            result = await client.result(qid, wait=10)
            assert result is not None
            assert result.to_json() == answered(env=["Staging"], zones=["North", "South"])


@pytest.mark.parametrize("platform", NATIVE)
async def test_native_other_takes_own_words_for_one_question(platform: str,
                                                             tmp_path: Path) -> None:
    async with native_rig(platform, tmp_path) as (person, _r, client):
        qid = (await client.create({"questions": [ENV, ZONES]}))["id"]
        await person.prompt()
        assert await person.pick(1, "North") is None
        await person.own_words(0, "staging-eu, please")
        result = await client.result(qid, wait=10)
        assert result is not None
        assert result.to_json() == answered(env=["staging-eu, please"], zones=["North"])
        await until(lambda: not person.controls())
        assert "staging-eu" not in person.text(), "own words are never echoed"


@pytest.mark.parametrize("platform", NATIVE)
async def test_native_stranger_toggle_changes_nothing(platform: str, tmp_path: Path) -> None:
    async with native_rig(platform, tmp_path) as (person, r, client):
        qid = (await client.create({"questions": [ZONES]}))["id"]
        await person.prompt()
        refusal = await person.pick(0, "North", stranger=True)
        assert refusal == "Sorry, only the person this question is for can answer it."
        assert await _kept(r, qid) == {}
        assert await person.chosen(0) == []
        assert (await client.question(qid))["status"] == "pending"


@pytest.mark.parametrize("platform", NATIVE)
async def test_native_submit_with_a_question_open_is_refused(platform: str,
                                                             tmp_path: Path) -> None:
    async with native_rig(platform, tmp_path) as (person, r, client):
        qid = (await client.create({"questions": [ENV, ZONES]}))["id"]
        await person.prompt()
        assert await person.pick(1, "East") is None
        assert await person.submit() == "Answer Env first."
        assert await client.result(qid) is None
        assert await _kept(r, qid) == {"zones": ["East"]}
        assert person.controls(), "the prompt stays open"


@pytest.mark.parametrize("platform", NATIVE)
async def test_native_skip_ends_the_whole_prompt(platform: str, tmp_path: Path) -> None:
    async with native_rig(platform, tmp_path) as (person, _r, client):
        qid = (await client.create({"questions": [ENV, ZONES]}))["id"]
        await person.prompt()
        assert await person.pick(0, "Staging") is None
        await person.skip()
        result = await client.result(qid, wait=10)
        assert result is not None
        assert result.to_json() == {"status": "no_answer", "reason": "skipped"}
        await until(lambda: not person.controls())
        assert "Skipped" in person.text()


@pytest.mark.parametrize("platform", NATIVE)
async def test_native_single_keeps_numbered_text(platform: str, tmp_path: Path) -> None:
    async with native_rig(platform, tmp_path, "single") as (person, r, client):
        adapter = r.bridge.adapters[person.platform]
        caps = adapter.capabilities(SurfaceId(person.surface))
        assert not caps.native_multi and not caps.native_several
        qid = (await client.create({"questions": [ZONES]}))["id"]
        await person.prompt()
        assert person.controls() == []
        assert "1) North" in person.text() and "1,3" in person.text()
        await person.say("1, 2")
        result = await client.result(qid, wait=10)
        assert result is not None and result.to_json() == answered(zones=["North", "South"])


@pytest.mark.parametrize("platform", NATIVE)
async def test_native_largest_prompt_fits_the_platform(platform: str, tmp_path: Path) -> None:
    """Three multiSelect questions of four 64-character labels: within every limit the fakes
    enforce (callback data, rows, options, ids, blocks), so the prompt is delivered natively."""
    big: dict[str, Any] = {"questions": [{
        "id": f"q{n}_{'x' * 60}", "header": f"Header {n}", "question": f"Which ones for {n}? " * 27,
        "multiSelect": True, "options": [{"label": f"{n}{i}" + "é" * 62, "description": "d" * 200}
                                         for i in range(4)]} for n in range(3)]}
    async with native_rig(platform, tmp_path) as (person, r, client):
        qid = (await client.create(big))["id"]
        delivered = await until(lambda: _delivered(r, qid))
        assert delivered.state == "delivered"
        await person.prompt()
        assert len(person.controls()) >= 4 + 3  # options and Done/Submit, Other…, Skip
        record = await r.bridge.store.get_question(qid)
        assert record is not None
        prompt = build_prompt(asked(record), r.bridge.adapters[platform].capabilities(
            SurfaceId(person.surface)))
        assert prompt.layout.kind == "native"
        sent = {"telegram": lambda: person.fake.calls_of("sendMessage"),  # type: ignore[attr-defined]
                "discord": lambda: person.fake.posts,  # type: ignore[attr-defined]
                "slack": lambda: person.fake.called("chat.postMessage")}[platform]()  # type: ignore[attr-defined]
        shown = json.dumps(sent, ensure_ascii=False)
        walked = platform == "telegram"  # one question at a time: the first one shows now
        for q in big["questions"][:1] if walked else big["questions"]:  # never clipped
            assert q["question"].strip() in shown.replace("\\", "")
            assert all(o["description"] in shown for o in q["options"])



# reach: a reminder on every surface ----------------------------------------------------------

@pytest.mark.parametrize("platform", sorted(RIGS))
async def test_every_surface_takes_a_reminder_and_an_answer_after_it(
        platform: str, tmp_path: Path) -> None:
    async with RIGS[platform]() as rig:
        config = make_config(tmp_path, surfaces=[rig.surface], **rig.sections)
        agents = [config.agents[0].model_copy(update={"remind_after": [1.0]}),
                  *config.agents[1:]]
        config = config.model_copy(update={"agents": agents})
        async with running(config, rig.env) as r, r.client() as client:
            qid = (await client.create(DEPLOY))["id"]
            reminded = await until(lambda: _reminded(r, qid))
            assert reminded.reminders == 1 and reminded.state == "delivered"
            if platform not in ("web", "webhook"):  # the webhook's own test reads its POSTs
                shown = "\n".join(visible(rig.shown()))
                assert "Reminder: Deploy — still waiting for your answer" in shown
            if rig.reply is not None:  # Discord replies to the newest message: the reminder
                await rig.reply(r, "2")
                result = await client.result(qid, wait=10)
                assert result is not None and result.answer_map() == {
                    "deploy_target": ["Production"]}


async def _reminded(r: Any, qid: str) -> Any:
    rows = await r.bridge.store.deliveries(qid)
    return rows[0] if rows and rows[0].reminders else None


@pytest.mark.parametrize("platform", ["discord", "email", "matrix", "slack", "telegram"])
async def test_a_platform_sections_locale_is_its_surfaces(platform: str, tmp_path: Path) -> None:
    async with RIGS[platform]() as rig:
        sections = {name: {**section, "locale": "id"} for name, section in rig.sections.items()}
        config = make_config(tmp_path, surfaces=[rig.surface], **sections)
        async with running(config, rig.env) as r:
            assert r.bridge.broker.surfaces.locale_for("assistant", SurfaceId(rig.surface)) == "id"
