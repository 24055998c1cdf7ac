"""Signing out everywhere ends every browser's session on every replica (PostgreSQL), and
`[web] session_days` is the cookie's lifetime."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.adapters.web.support import login, same_origin
from tests.harness import make_config, running
from tests.pg import scratch_database, server_url


async def signed_in(http: httpx.AsyncClient) -> bool:
    return (await http.get("/ui/api/state")).status_code == 200


@pytest.mark.skipif(server_url() is None, reason="ASKBRIDGE_TEST_POSTGRES_URL=off")
async def test_sign_out_everywhere_ends_every_session_on_every_replica(tmp_path: Path) -> None:
    async with scratch_database() as url:
        config = make_config(tmp_path, store={"url": url}, web={"session_days": 7})
        async with running(config) as a, running(config) as b, a.http() as phone, \
                a.http() as laptop, b.http() as tablet:
            csrf = await login(a, phone)
            await login(a, laptop)
            await login(b, tablet)
            assert all([await signed_in(h) for h in (phone, laptop, tablet)])
            ended = await phone.post("/ui/api/sessions/end", json={},
                                     headers=same_origin(a, csrf))
            assert ended.status_code == 200, ended.text
            assert [await signed_in(h) for h in (phone, laptop, tablet)] == [False] * 3
            # The laptop's cookie, taken to the other replica, is refused there too.
            async with httpx.AsyncClient(base_url=b.url, trust_env=False,
                                         cookies=laptop.cookies) as moved:
                assert not await signed_in(moved)
            await login(b, tablet)  # signing in again works
            assert await signed_in(tablet)


async def test_the_login_cookie_lives_session_days(tmp_path: Path) -> None:
    async with running(make_config(tmp_path, web={"session_days": 3})) as r, r.http() as http:
        response = await http.get("/", params={"token": "test-web-token-0123456789"})
        assert response.status_code == 303
        cookies = response.headers.get_list("set-cookie")
        assert all("Max-Age=259200" in c for c in cookies), cookies
