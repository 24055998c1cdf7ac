"""Shared pieces of the web UI tests: the surfaces and questions, login, push subscriptions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from adapters.web.security import CSRF_COOKIE
from tests.fakes.push import FakeBrowser
from tests.harness import WEB_TOKEN, Running, make_config
from tests.samples import TARGET, ask, described

SURFACES = ["web", "webhook:sms:+100"]
DESCRIBED = ask(described(TARGET, {"Staging (Recommended)": "Safe default"}))
"""The sample question with a description on its first option."""
THREE = {
    "questions": [
        {"id": "env", "header": "Environment", "question": "Which environment?",
         "options": [{"label": "Staging (Recommended)"}, {"label": "Production"}]},
        {"id": "checks", "header": "Checks", "question": "Which checks should run first?",
         "multiSelect": True,
         "options": [{"label": "Lint"}, {"label": "Test"}, {"label": "Build"}]},
        {"id": "notify", "header": "Notify", "question": "Who should hear about it?",
         "options": [{"label": "Nobody"}, {"label": "The team channel"}]},
    ],
}
SUBJECT = "mailto:ops@example.com"
PUBLIC = "https://ask.example.com"


async def login(r: Running, http: httpx.AsyncClient) -> str:
    """Sign in with the token as a browser would; the CSRF token for state changes."""
    response = await http.get("/", params={"token": WEB_TOKEN})
    assert response.status_code == 303
    return http.cookies[CSRF_COOKIE]


def config(tmp_path: Path, **sections: Any) -> Any:
    return make_config(tmp_path, surfaces=SURFACES,
                       web={"vapid_subject": SUBJECT, "public_url": PUBLIC}, **sections)


def same_origin(r: Running, csrf: str) -> dict[str, str]:
    return {"x-askbridge-csrf": csrf, "origin": r.url}


async def subscribed(r: Running, http: httpx.AsyncClient, *browsers: FakeBrowser) -> str:
    """Log in and subscribe each browser as the page would; the CSRF token for more requests."""
    csrf = await login(r, http)
    for browser in browsers:
        response = await http.post("/ui/api/push/subscriptions", json=browser.subscription(),
                                   headers=same_origin(r, csrf))
        assert response.status_code == 201, response.text
    return csrf


async def stored(r: Running) -> list[str]:
    return [key for key, _ in await r.bridge.store.state_items("web", "push:")]
