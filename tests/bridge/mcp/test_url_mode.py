"""URL-mode elicitation: a host that can open a link but shows no form gets the question's
signed answer page; the person answers there and `ask_user` returns that answer."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import mcp.types as mt
import pytest
from mcp.client.session import ClientSession

from tests.bridge.mcp.new_host import MODES, answer, answer_remotely, new_host
from tests.harness import make_config, running
from tests.samples import DEPLOY

CANARY = {"status": "answered", "answers": {"answers": {"deploy_target": {"answers": ["Canary"]}}}}


@pytest.fixture
def url_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's client declares both modes with an elicitation callback: this host can open
    links only (`elicitation: {url: {}}`)."""
    build = ClientSession._build_capabilities

    def without_form(self: ClientSession, version: str) -> mt.ClientCapabilities:
        caps = build(self, version)
        if caps.elicitation is None:
            return caps
        return caps.model_copy(update={"elicitation": mt.ElicitationCapability(
            url=mt.UrlElicitationCapability())})

    monkeypatch.setattr(ClientSession, "_build_capabilities", without_form)


@pytest.mark.parametrize("mode", MODES)
async def test_the_host_opens_the_link_and_the_answer_there_is_returned(
        tmp_path: Path, mode: str, url_only: None) -> None:
    shown: list[mt.ElicitRequestParams] = []

    async def open_link(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        shown.append(params)
        assert isinstance(params, mt.ElicitRequestURLParams), "a link, not a form"
        async with httpx.AsyncClient(trust_env=False) as browser:
            page = await browser.get(params.url)
            assert page.status_code == 200 and "Where should I deploy?" in page.text
            done = await browser.post(params.url, data={"q0": "2", "do": "submit"})
            assert done.status_code == 200, done.text
        return mt.ElicitResult(action="accept")

    heard: list[object] = []
    async with running(make_config(tmp_path)) as r, \
            new_host(f"{r.url}/mcp", mode=mode, form=open_link, heard=heard) as host:
        result = await host.call_tool("ask_user", DEPLOY)
    assert answer(result) == CANARY
    assert len(shown) == 1 and isinstance(shown[0], mt.ElicitRequestURLParams)
    assert shown[0].url.startswith(f"{r.url}/l/")
    assert "Where should I deploy?" in shown[0].message
    done = [n for n in heard if isinstance(n, mt.ElicitCompleteNotification)]
    if mode == "legacy":  # 2025-11-25: the link's elicitation is declared over
        assert [n.params.elicitation_id for n in done] == [shown[0].elicitation_id]
    else:  # 2026-07-28: the link came in `input_required`; the retry returns the result itself
        assert done == []


@pytest.mark.parametrize("mode", MODES)
async def test_a_declined_link_leaves_the_question_to_the_remote_surfaces(
        tmp_path: Path, mode: str, url_only: None) -> None:
    async def decline(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        assert isinstance(params, mt.ElicitRequestURLParams)
        return mt.ElicitResult(action="decline")

    async with running(make_config(tmp_path)) as r, \
            new_host(f"{r.url}/mcp", mode=mode, form=decline) as host:
        answering = asyncio.create_task(answer_remotely(r, "canary"))
        result = await host.call_tool("ask_user", DEPLOY)
        await answering
    assert answer(result) == CANARY


async def test_a_host_with_forms_gets_the_form_not_the_link(tmp_path: Path) -> None:
    shown: list[mt.ElicitRequestParams] = []

    async def form(params: mt.ElicitRequestParams) -> mt.ElicitResult:
        shown.append(params)
        return mt.ElicitResult(action="accept", content={"deploy_target": "Canary"})

    async with running(make_config(tmp_path)) as r, \
            new_host(f"{r.url}/mcp", form=form) as host:
        result = await host.call_tool("ask_user", DEPLOY)
    assert answer(result) == CANARY
    assert [type(p) for p in shown] == [mt.ElicitRequestFormParams]
