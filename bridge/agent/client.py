"""`AskClient`: the Python client for the HTTP API (`await client.ask_user(questions=[…])`)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from bridge.agent.approvals import ApprovalCalls
from bridge.agent.calls import AskError as AskError  # where callers have always found it
from bridge.agent.calls import body_of, refused
from bridge.model.contract import AskRequest, AskResult
from bridge.runtime.config import load_credentials
from bridge.runtime.tls import client_tls
from bridge.text.i18n import tr

DEFAULT_URL = "http://127.0.0.1:8765"


class NoToken(ValueError):
    """No agent token anywhere: none passed, no ASKBRIDGE_TOKEN, no `.askbridge/` beside us."""

    def __init__(self) -> None:
        super().__init__(tr(
            "en", "No agent token: set ASKBRIDGE_TOKEN (or pass --token), or run from the folder "
            "where `askbridge serve` keeps its .askbridge/ folder."))


def unreachable(url: str) -> str:
    """What to tell a person or a model when nothing answers at `url`."""
    return tr("en", "askbridge is not reachable at {url}: nothing answered there. Start it with "
              "`askbridge serve` (or point ASKBRIDGE_URL or --url at where it runs), then try "
              "again.", url=url)


def default_token(data_dir: str = ".askbridge") -> str | None:
    """ASKBRIDGE_TOKEN, else the embedded defaults' stored agent token (when run beside them)."""
    token = os.environ.get("ASKBRIDGE_TOKEN")
    if token:
        return token
    creds = load_credentials(Path(data_dir))
    return creds.get("agent_token") if creds else None


class AskClient(ApprovalCalls):
    """Talks to one askbridge server as one agent. Use `async with`, or call `aclose()`."""

    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        session: str | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = (url or os.environ.get("ASKBRIDGE_URL") or DEFAULT_URL).rstrip("/")
        token = token or default_token()
        if not token:
            raise NoToken()
        self.session = session or os.environ.get("ASKBRIDGE_SESSION") or "main"
        self._http = httpx.AsyncClient(
            base_url=self.url,
            headers={"Authorization": f"Bearer {token}"},
            timeout=httpx.Timeout(30.0, read=None),
            transport=transport,
            trust_env=False,
            verify=client_tls(),
        )

    async def __aenter__(self) -> AskClient:
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def ask_user(
        self,
        questions: list[dict[str, Any]],
        timeout_seconds: int | None = None,
        *,
        session: str | None = None,
    ) -> AskResult:
        """Ask and wait for the answer; cancelling this call cancels the question."""
        body: dict[str, Any] = {"questions": questions}
        if timeout_seconds is not None:
            body["timeoutSeconds"] = timeout_seconds
        return await self.ask(body, session=session)

    async def ask(
        self, request: dict[str, Any] | AskRequest, *, session: str | None = None
    ) -> AskResult:
        """Ask and block. If the server restarts meanwhile, keep waiting for the same question."""
        body = request.model_dump(by_alias=True, exclude_none=True) if isinstance(
            request, AskRequest) else request
        path = f"/v1/sessions/{session or self.session}/ask"
        response = await self._http.request("POST", path, json=body)
        if response.status_code == 503 and "id" in body_of(response):
            return await self.wait(str(body_of(response)["id"]))
        if response.status_code >= 400:
            refused(response)
        return AskResult.model_validate(response.json())

    async def wait(self, question_id: str, patience: float = 120.0) -> AskResult:
        """Long-poll until the question ends, riding out a server restart (down at most
        `patience` seconds); cancelling this call cancels the question."""
        loop = asyncio.get_running_loop()
        down_since: float | None = None
        try:
            while True:
                try:
                    result = await self.result(question_id, wait=30)
                    down_since = None
                except (httpx.TransportError, AskError) as exc:
                    if isinstance(exc, AskError) and exc.status < 500:
                        raise
                    down_since = down_since or loop.time()
                    if loop.time() - down_since > patience:
                        raise
                    await asyncio.sleep(0.5)
                    continue
                if result is not None:
                    return result
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self.cancel(question_id)), 5)
            raise

    async def create(self, request: dict[str, Any], *, session: str | None = None,
                     attach: bool = False) -> dict[str, Any]:
        """Ask without blocking: `{id, status, createdAt, expiresAt}`. With `attach`, the same
        questions pending in the session are that question (its id, its deadline)."""
        response = await self._call("POST", f"/v1/sessions/{session or self.session}/questions",
                                    json=request, params={"attach": "true"} if attach else None)
        return dict(response.json())

    async def follow(self, question_id: str) -> AskResult:
        """Block until the agent's own question ends, as `ask` does (leaving cancels it); if the
        server restarts meanwhile, keep waiting for it."""
        response = await self._http.request("POST", f"/v1/questions/{question_id}/wait")
        if response.status_code == 503 and "id" in body_of(response):
            return await self.wait(question_id)
        if response.status_code >= 400:
            refused(response)
        return AskResult.model_validate(response.json())

    async def host_answer(self, question_id: str, answers: dict[str, list[str]] | None
                          ) -> str | None:
        """Hand in what this agent's own MCP host's form gave (None: Skip); the reason it was
        refused, or None when it was taken (or the question had already ended)."""
        body: dict[str, Any] = {"skip": True} if answers is None else {"answers": answers}
        reply = (await self._call("POST", f"/v1/questions/{question_id}/host-answer",
                                  json=body)).json()
        return None if reply["accepted"] else reply.get("message")

    async def result(self, question_id: str, wait: float = 0) -> AskResult | None:
        """The result, or None while still pending after `wait` seconds."""
        response = await self._call("GET", f"/v1/questions/{question_id}/result",
                                    params={"wait": wait})
        if response.status_code == 202:
            return None
        return AskResult.model_validate(response.json())

    async def question(self, question_id: str) -> dict[str, Any]:
        return dict((await self._call("GET", f"/v1/questions/{question_id}")).json())

    async def cancel(self, question_id: str) -> AskResult:
        response = await self._call("POST", f"/v1/questions/{question_id}/cancel")
        return AskResult.model_validate(response.json())

    async def timeline(self, session: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        response = await self._call("GET", f"/v1/sessions/{session or self.session}/timeline",
                                    params={"limit": limit})
        return list(response.json()["questions"])

    async def pending(self) -> list[dict[str, Any]]:
        """This agent's pending questions in every session, newest first (every page)."""
        found: list[dict[str, Any]] = []
        cursor: str | None = ""
        while cursor is not None:
            page = (await self._call("GET", "/v1/questions", params={
                "status": "pending", "limit": 200, **({"cursor": cursor} if cursor else {})})
                    ).json()
            found += page["questions"]
            cursor = page.get("nextCursor")
        return found

    async def me(self) -> dict[str, Any]:
        return dict((await self._call("GET", "/v1/me")).json())
