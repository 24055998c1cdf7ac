"""What people do in Matrix, done by hand: plain client-API calls as that user (httpx)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from bridge import BridgeConfig
from tests.adapters.edit_support import request_approval as ask_approval
from tests.adapters.matrix.synapse import Synapse, User
from tests.harness import AGENT_TOKEN, base_env, make_config, until

POLL_START = "org.matrix.msc3381.poll.start"
POLL_RESPONSE = "org.matrix.msc3381.poll.response"
POLL_END = "org.matrix.msc3381.poll.end"
MARK = "net.askbridge.question"
DEPLOY: dict[str, Any] = {"action": "Deploy web to production", "tool": "deploy",
                          "arguments": {"env": "production"}}


@dataclass
class Person:
    """One Matrix user acting through the client API."""

    hs: Synapse
    user: User

    @property
    def id(self) -> str:
        return self.user.user_id

    def http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.hs.url, timeout=30, trust_env=False,
                                 headers={"Authorization": f"Bearer {self.user.token}"})

    async def call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        async with self.http() as http:
            got = await http.request(method, f"/_matrix/client/v3{path}", json=body)
            got.raise_for_status()
            data: dict[str, Any] = got.json()
            return data

    async def send(self, room: str, event_type: str, content: dict[str, Any]) -> str:
        txn = secrets.token_hex(8)
        sent = await self.call("PUT", f"/rooms/{quote(room)}/send/{event_type}/{txn}", content)
        return str(sent["event_id"])

    async def say(self, room: str, text: str, reply_to: str | None = None) -> str:
        content: dict[str, Any] = {"msgtype": "m.text", "body": text}
        if reply_to:  # as Element writes a reply: the relation and a quoted fallback
            content["body"] = f"> <@askbot:test.local> the prompt\n\n{text}"
            content["m.relates_to"] = {"m.in_reply_to": {"event_id": reply_to}}
        return await self.send(room, "m.room.message", content)

    async def vote(self, room: str, poll_id: str, *answers: str) -> str:
        return await self.send(room, POLL_RESPONSE, {
            "m.relates_to": {"rel_type": "m.reference", "event_id": poll_id},
            POLL_RESPONSE: {"answers": list(answers)}})

    async def join(self, room: str) -> None:
        await self.call("POST", f"/join/{quote(room)}", {})

    async def events(self, room: str) -> list[dict[str, Any]]:
        """The room's latest events as this user sees them, oldest first (rooms are shared by
        the tests of a session; one test's events are always among the latest 200)."""
        got = await self.call("GET", f"/rooms/{quote(room)}/messages?dir=b&limit=200")
        return list(reversed(got["chunk"]))

    async def from_bot(self, room: str, event_type: str, bot: str,
                       question_id: str) -> list[dict[str, Any]]:
        return [e for e in await self.events(room)
                if e["type"] == event_type and e["sender"] == bot
                and e["content"].get(MARK) == question_id]


async def make_room(owner: Person, *members: Person) -> str:
    """A private, unencrypted room made by `owner`, with `members` invited and joined."""
    made = await owner.call("POST", "/createRoom", {
        "preset": "private_chat", "invite": [m.id for m in members]})
    room = str(made["room_id"])
    for member in members:
        await member.join(room)
    return room


def open_room(hs: Synapse, owner: User, *members: User) -> str:
    """`make_room` outside an event loop (for session fixtures)."""
    with hs.http(owner.token) as http:
        made = http.post("/_matrix/client/v3/createRoom", json={
            "preset": "private_chat", "invite": [m.user_id for m in members]})
        made.raise_for_status()
    room = str(made.json()["room_id"])
    for member in members:
        with hs.http(member.token) as http:
            http.post(f"/_matrix/client/v3/join/{quote(room)}", json={}).raise_for_status()
    return room


async def seen(predicate: Any, timeout: float = 20.0) -> Any:
    """`until` for conditions read from the homeserver: polled gently, patient under load."""
    return await until(predicate, timeout=timeout, interval=0.1)


@dataclass
class Mx:
    """One test's Matrix world: the homeserver, the bot, the person, a stranger, their room."""

    hs: Synapse
    tmp: Path
    bot: Person
    person: Person
    stranger: Person
    room: str
    bot_token: str

    @property
    def surface(self) -> str:
        return f"matrix:{self.room}"

    @property
    def env(self) -> dict[str, str]:
        return {**base_env(), "MATRIX_ACCESS_TOKEN": self.bot_token}

    def section(self, **extra: Any) -> dict[str, Any]:
        return {"homeserver": self.hs.url, "user_id": self.bot.id,
                "answerers": [self.person.id], "sync_timeout": 5, "retry_base_seconds": 0.1,
                **extra}

    def config(self, surfaces: list[str] | None = None, **matrix: Any) -> BridgeConfig:
        return make_config(self.tmp, surfaces=surfaces or [self.surface],
                           matrix=self.section(**matrix))

    async def prompt_events(self, question_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The prompt text and its polls, as the person sees them."""
        events = [e for e in await self.person.events(self.room) if e["sender"] == self.bot.id
                  and e["content"].get(MARK) == question_id]
        texts = [e for e in events if e["type"] == "m.room.message"
                 and "m.relates_to" not in e["content"]]
        polls = [e for e in events if e["type"] == POLL_START]
        assert texts, "the prompt text reached the room"
        return texts[0], polls

    async def notices(self, reply_to: str) -> list[str]:
        """What the bot told someone, in reply to their event."""
        return [e["content"]["body"] for e in await self.person.events(self.room)
                if e["sender"] == self.bot.id and e["content"].get("msgtype") == "m.notice"
                and e["content"].get("m.relates_to", {}).get("m.in_reply_to", {})
                .get("event_id") == reply_to]


async def delivered(r: Any, question_id: str) -> Any:
    """Wait until the bridge `r` has the prompt delivered (the store row, with its reference)."""
    async def row() -> Any:
        rows = await r.bridge.store.deliveries(question_id)
        return rows[0] if rows and rows[0].state == "delivered" else None
    return await until(row, timeout=20)


async def request_approval(r: Any) -> str:
    return await ask_approval(r, DEPLOY)


async def approval_result(r: Any, approval_id: str) -> dict[str, Any]:
    async def ended() -> dict[str, Any] | None:
        async with r.http() as http:
            found = (await http.get(f"/v1/approvals/{approval_id}", params={"wait": 1},
                                    headers={"authorization": f"Bearer {AGENT_TOKEN}"})).json()
        return found if found["status"] != "pending" else None
    return dict((await until(ended, timeout=20))["result"])
