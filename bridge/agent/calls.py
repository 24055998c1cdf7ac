"""One HTTP call to askbridge and how it fails: `AskError` for a refusal, with its details."""

from __future__ import annotations

from typing import Any, NoReturn

import httpx


class AskError(Exception):
    """The server refused the call; `status` is the HTTP status, `details` its `{loc, msg}` list."""

    def __init__(self, status: int, code: str, details: list[dict[str, str]],
                 body: dict[str, Any] | None = None) -> None:
        self.status = status
        self.body = body or {}
        """The whole error body (a 409's `pendingId`)."""
        self.code = code
        self.details = details
        text = "; ".join(f"{d.get('loc', 'body')}: {d.get('msg', '')}" for d in details)
        super().__init__(f"{status} {code}: {text}")


def body_of(response: httpx.Response) -> dict[str, Any]:
    """The response's JSON object, or {} when it has none."""
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def refused(response: httpx.Response) -> NoReturn:
    body = body_of(response)
    details = list(body.get("details", [])) or [{"loc": "body", "msg": response.text[:200]}]
    raise AskError(response.status_code, str(body.get("error", "error")), details, body)


class Caller:
    """What the client's parts share: the HTTP client, the default session, one checked call."""

    _http: httpx.AsyncClient
    session: str

    async def _call(self, method: str, path: str, **kw: Any) -> httpx.Response:
        response = await self._http.request(method, path, **kw)
        if response.status_code >= 400:
            refused(response)
        return response
