"""The HTTP server: agents' API, adapters' routes, MCP at /mcp, health, limits, JSON errors.

Plain Starlette. FastAPI generates the OpenAPI document (and `/docs`) from the routes'
declarations, and is imported only when one of those is first asked for; so is the MCP SDK,
when /mcp first is."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount
from starlette.types import ASGIApp, Receive, Scope, Send

from bridge.http.answer_page import AnswerPage
from bridge.http.api import Auth, Routes, build_routes
from bridge.http.approvals_api import add_approvals
from bridge.http.attached import add_attached
from bridge.http.body_limit import BodyLimit
from bridge.http.listing import add_listing
from bridge.http.openapi import TITLE, document
from bridge.http.responses import error_response, refusal
from bridge.http.urls import NulInQuery
from bridge.mcp.lazy import LazyMcp
from bridge.mcp.origins import OriginGuard
from bridge.model.adapter import Routed
from bridge.model.errors import BridgeError
from bridge.model.validation import InvalidRequest
from bridge.server.composition import Bridge
from bridge.server.operations import add_operations

Lifespan = Callable[[Starlette], AbstractAsyncContextManager[None]]


def agent_tokens(bridge: Bridge) -> dict[str, str]:
    return {a.name: bridge.env.get(a.token_env, "") for a in bridge.config.agents}


async def _bridge_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, BridgeError)
    return refusal(exc)


async def _invalid_request(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, InvalidRequest)
    return error_response(422, details=[p.model_dump() for p in exc.problems])


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    # exc.headers carries a 405's `Allow` (RFC 9110 requires it): keep it.
    allow = (exc.headers or {}).get("Allow")
    msg = {404: "There is no such path; the API is described at /openapi.json.",
           405: f"{request.method} is not allowed here; use {allow}."}.get(
        exc.status_code, str(exc.detail))
    return error_response(exc.status_code, msg, "request", headers=exc.headers)


ERROR_HANDLERS = {BridgeError: _bridge_error, InvalidRequest: _invalid_request,
                  StarletteHTTPException: _http_error}


def _ops(bridge: Bridge, api: Routes) -> Routes:
    """Health, and the document (made on its first request) with its page."""
    ops = Routes("", ["ops"])
    spec: dict[str, Any] = {}

    def documented() -> dict[str, Any]:
        if not spec:
            channels = bridge.config.section("webhooks") if "webhook" in bridge.adapters else None
            spec.update(document([*ops.documented(), *api.documented()], sorted(channels or {})))
        return spec

    @ops.add("GET", "/healthz", response_model=dict[str, Any])
    async def healthz(_: Request) -> JSONResponse:
        return JSONResponse({"ok": bridge.started, "adapters": sorted(bridge.adapters)})

    add_operations(ops, bridge)

    @ops.add("GET", "/openapi.json", include_in_schema=False)
    async def openapi(_: Request) -> JSONResponse:
        return JSONResponse(documented())

    @ops.add("GET", "/docs", include_in_schema=False)
    async def docs(_: Request) -> HTMLResponse:
        from fastapi.openapi.docs import get_swagger_ui_html

        return get_swagger_ui_html(openapi_url="/openapi.json", title=f"{TITLE} - Swagger UI")

    return ops


def create_app(bridge: Bridge, extra_lifespans: list[Lifespan] | None = None) -> ASGIApp:
    """The ASGI app for one bridge; starting it starts the bridge (and stops it after)."""
    mounts: list[tuple[str, ASGIApp, Lifespan | None]] = []
    key_env = bridge.config.mcp.state_key_env
    mcp = LazyMcp(bridge.broker, bridge.receiver, agent_tokens(bridge), OriginGuard(bridge.config),
                  bridge.config.mcp, bridge.env.get(key_env) if key_env else None,
                  float(bridge.env.get("ASKBRIDGE_PROGRESS_SECONDS") or 10),
                  approvals=bridge.approvals, links=bridge.reads.links)
    mounts.append(("/mcp", mcp, mcp.lifespan))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await bridge.start()
        try:
            async with _nested([m[2] for m in mounts if m[2]] + (extra_lifespans or []), app):
                yield
        finally:
            await bridge.stop()

    auth = Auth(bridge.broker, agent_tokens(bridge))
    api = build_routes(bridge.broker, bridge.reads, auth)
    add_listing(api, bridge.reads, auth)
    add_approvals(api, bridge.approvals, auth)
    add_attached(api, bridge.broker, bridge.receiver, bridge.reads, auth)
    ops = _ops(bridge, api)
    routes: list[BaseRoute] = [*ops.served, *api.served]
    routes.extend(AnswerPage(bridge.reads, bridge.receiver, bridge.config).routes())
    for adapter in bridge.adapters.values():
        if isinstance(adapter, Routed):
            routes.extend(_routes(adapter))
    routes.extend(Mount(path, sub) for path, sub, _ in mounts)
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers=ERROR_HANDLERS)
    app.state.bridge = bridge
    return NulInQuery(BodyLimit(_exact_mounts(app, [path for path, _, _ in mounts]),
                              bridge.config.server.max_body_bytes))


def _routes(adapter: Routed) -> list[BaseRoute]:
    routes: list[BaseRoute] = []
    for route in adapter.routes():
        if not isinstance(route, BaseRoute):
            raise TypeError(f"{type(adapter).__name__}.routes() gave {route!r}, "
                            "not a Starlette route")
        routes.append(route)
    return routes


def _exact_mounts(app: ASGIApp, paths: list[str]) -> ASGIApp:
    """Serve a mount at its bare path too: clients are told `/mcp`, and a 307 to `/mcp/` is not
    followed by every MCP client."""

    async def routed(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] in paths:
            path = scope["path"] + "/"
            scope = {**scope, "path": path, "raw_path": path.encode()}
        await app(scope, receive, send)

    return routed


@asynccontextmanager
async def _nested(lifespans: list[Lifespan], app: Starlette) -> AsyncIterator[None]:
    if not lifespans:
        yield
        return
    async with lifespans[0](app), _nested(lifespans[1:], app):
        yield
