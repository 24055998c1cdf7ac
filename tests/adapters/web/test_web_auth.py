"""Web UI auth without a browser: token login, cookies, CSRF, Origin checks, nothing leaked."""

from __future__ import annotations

import asyncio
from pathlib import Path

import structlog
from starlette.requests import Request

from adapters.web.security import CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE, WebAuth
from tests.adapters.web.support import SURFACES, login
from tests.harness import WEB_TOKEN, Running, make_config, running, until
from tests.samples import DEPLOY


async def pending_id(r: Running) -> str:
    records = await until(lambda: r.bridge.store.pending_questions())
    return str(records[0].id)


async def test_nothing_without_the_token(tmp_path: Path) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.http() as http:
        for path in ["/", "/ui/api/state", "/ui/api/timeline?agent=assistant&session=main",
                     "/ui/api/questions/q_0000000000000000", "/ui/events"]:
            assert (await http.get(path)).status_code == 401, path
        assert (await http.post("/ui/api/questions/q_x/answer", json={"answers": None})
                ).status_code == 401
        wrong = await http.get("/", params={"token": WEB_TOKEN + "x"})
        assert wrong.status_code == 401 and SESSION_COOKIE not in wrong.headers.get("set-cookie", "")
        http.cookies.set(SESSION_COOKIE, "forged.0123abcd")
        assert (await http.get("/ui/api/state")).status_code == 401
        assert (await http.get("/healthz")).status_code == 200
        for asset in ["app.js", "panel.js", "dom.js", "timeline.js", "app.css"]:
            assert (await http.get(f"/ui/static/{asset}")).status_code == 200
        assert (await http.get("/ui/static/index.py")).status_code == 404


async def test_login_sets_cookies_and_drops_the_token(tmp_path: Path) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.http() as http:
        with structlog.testing.capture_logs() as logs:
            response = await http.get("/", params={"token": WEB_TOKEN})
            await http.get("/", params={"token": "not-it"})
        assert response.status_code == 303 and response.headers["location"] == "/"
        assert response.headers["referrer-policy"] == "no-referrer"
        cookies = response.headers.get_list("set-cookie")
        session = next(c for c in cookies if c.startswith(SESSION_COOKIE + "="))
        assert "HttpOnly" in session and "SameSite=lax" in session
        csrf = next(c for c in cookies if c.startswith(CSRF_COOKIE + "="))
        assert "HttpOnly" not in csrf and "SameSite=strict" in csrf
        assert all(WEB_TOKEN not in c for c in cookies)
        assert [e["event"] for e in logs] == ["web_login", "web_login_refused"]
        assert WEB_TOKEN not in repr(logs)
        page = await http.get("/")
        assert page.status_code == 200 and "/ui/static/app.js" in page.text
        assert "script-src 'self'" in page.headers["content-security-policy"]
        state = await http.get("/ui/api/state")
        assert state.status_code == 200 and state.json()["pending"] == []


async def test_state_changes_need_csrf_and_same_origin(tmp_path: Path) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.client() as client, \
            r.http() as http:
        csrf = await login(r, http)
        ask = asyncio.create_task(client.ask(DEPLOY))
        qid = await pending_id(r)
        path = f"/ui/api/questions/{qid}/answer"
        body = {"answers": {"deploy_target": ["Canary"]}}
        refused = [
            {"origin": r.url},
            {"origin": "http://evil.example", CSRF_HEADER: csrf},
            {"origin": "null", CSRF_HEADER: csrf},
            {CSRF_HEADER: csrf},
            {"origin": r.url, CSRF_HEADER: csrf[::-1], "sec-fetch-site": "same-origin"},
            {"origin": r.url, CSRF_HEADER: csrf, "sec-fetch-site": "cross-site"},
        ]
        for headers in refused:
            response = await http.post(path, json=body, headers=headers)
            assert response.status_code == 403, headers
        assert not ask.done()
        state = (await http.get("/ui/api/state")).json()
        assert [q["id"] for q in state["pending"]] == [qid]
        for bad in [{}, {"answers": {"deploy_target": ["x" * 5000]}}, {"answers": [], "x": 1}]:
            malformed = await http.post(path, json=bad, headers={"origin": r.url, CSRF_HEADER: csrf})
            assert malformed.status_code == 422, bad
        incomplete = await http.post(path, json={"answers": {}},
                                     headers={"origin": r.url, CSRF_HEADER: csrf})
        assert incomplete.status_code == 422 and "Deploy" in incomplete.json()["message"]
        ok = await http.post(path, json=body, headers={"origin": r.url, CSRF_HEADER: csrf})
        assert ok.status_code == 200 and ok.json()["accepted"] is True
        result = await asyncio.wait_for(ask, 10)
        assert result.to_json()["answers"]["answers"]["deploy_target"] == {"answers": ["Canary"]}
        late = await http.post(path, json=body, headers={"origin": r.url, CSRF_HEADER: csrf})
        assert late.status_code == 409
        timeline = await http.get("/ui/api/timeline", params={"agent": "assistant",
                                                             "session": "main"})
        item = timeline.json()["items"][0]
        assert item["summary"] == "Deploy: Canary" and item["elsewhere"] is False


async def test_event_stream_checks_origin(tmp_path: Path) -> None:
    async with running(make_config(tmp_path, surfaces=SURFACES)) as r, r.http() as http:
        await login(r, http)
        foreign = await http.get("/ui/events", headers={"origin": "http://evil.example"})
        assert foreign.status_code == 403
        async with http.stream("GET", "/ui/events", headers={"origin": r.url}) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            first = await asyncio.wait_for(anext(stream.aiter_text()), 10)
            assert '"type":"hello"' in first


def _request(headers: dict[str, str], host: str = "127.0.0.1:8765") -> Request:
    raw = [(b"host", host.encode())] + [(k.encode(), v.encode()) for k, v in headers.items()]
    return Request({"type": "http", "scheme": "http", "method": "GET", "path": "/",
                    "headers": raw, "query_string": b""})


def test_sessions_are_signed_and_tied_to_the_token() -> None:
    auth = WebAuth(WEB_TOKEN, "http://askbridge.example:8765")
    assert auth.token_ok(WEB_TOKEN) and not auth.token_ok(WEB_TOKEN[:-1]) and not auth.token_ok("")
    cookie, csrf = auth.new_session()
    signed = _request({"cookie": f"{SESSION_COOKIE}={cookie}", CSRF_HEADER: csrf})
    nonce = auth.session(signed)
    assert nonce is not None and auth.csrf_ok(signed, nonce)
    assert WebAuth("another-token").session(signed) is None
    assert auth.same_origin(_request({"origin": "http://askbridge.example:8765"}), required=True)
    assert auth.same_origin(_request({"referer": "http://127.0.0.1:8765/#a/b"}), required=True)
    assert not auth.same_origin(_request({}), required=True)
    assert auth.same_origin(_request({}), required=False)
    assert not auth.same_origin(_request({"origin": "http://127.0.0.1:9999"}), required=False)


def test_a_session_ends_after_its_lifetime_and_a_forged_date_is_refused() -> None:
    import time

    auth = WebAuth(WEB_TOKEN, max_age=2 * 24 * 3600)
    fresh, _ = auth.new_session()
    old, _ = auth.new_session(now=time.time() - 3 * 24 * 3600)
    assert auth.session(_request({"cookie": f"{SESSION_COOKIE}={fresh}"})) is not None
    assert auth.session(_request({"cookie": f"{SESSION_COOKIE}={old}"})) is None
    nonce, _, mac = old.split(".")
    forged = f"{nonce}.{int(time.time() * 1000)}.{mac}"  # moved forward without the key
    assert auth.session(_request({"cookie": f"{SESSION_COOKIE}={forged}"})) is None
    assert auth.session(_request({"cookie": f"{SESSION_COOKIE}={nonce}.{mac}"})) is None
