"""The HTTP server: agents' API, adapters' routes, MCP at /mcp, health, limits, JSON errors."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from bridge.composition import Bridge
from bridge.errors import BridgeError
from bridge.http.api import Auth, build_routes
from bridge.http.limits import BodyLimit
from bridge.http.openapi import document
from bridge.http.responses import error_response, refusal
from bridge.types import Routed
from bridge.validation import InvalidRequest, Problem, format_loc

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]


def agent_tokens(bridge: Bridge) -> dict[str, str]:
    return {a.name: bridge.env.get(a.token_env, "") for a in bridge.config.agents}


def _invalid(problems: list[Problem]) -> JSONResponse:
    return error_response(422, details=[p.model_dump() for p in problems])


def _install_errors(app: FastAPI) -> None:
    @app.exception_handler(BridgeError)
    async def bridge_error(_: Request, exc: BridgeError) -> JSONResponse:
        return refusal(exc)

    @app.exception_handler(InvalidRequest)
    async def invalid_request(_: Request, exc: InvalidRequest) -> JSONResponse:
        return _invalid(exc.problems)

    @app.exception_handler(RequestValidationError)
    async def validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _invalid([Problem(loc=format_loc(tuple(e["loc"])), msg=str(e["msg"]))
                         for e in exc.errors()])

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # exc.headers carries a 405's `Allow` (RFC 9110 requires it): keep it.
        allow = (exc.headers or {}).get("Allow")
        msg = {404: "There is no such path; the API is described at /openapi.json.",
               405: f"{request.method} is not allowed here; use {allow}."}.get(
            exc.status_code, str(exc.detail))
        return error_response(exc.status_code, msg, "request", headers=exc.headers)


def create_app(bridge: Bridge, extra_lifespans: list[Lifespan] | None = None) -> ASGIApp:
    """The ASGI app for one bridge; starting it starts the bridge (and stops it after)."""
    mounts: list[tuple[str, ASGIApp, Lifespan | None]] = []
    from bridge.mcp.http import mcp_mount

    mcp_app, mcp_lifespan = mcp_mount(bridge, agent_tokens(bridge))
    mounts.append(("/mcp", mcp_app, mcp_lifespan))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await bridge.start()
        try:
            async with _nested([m[2] for m in mounts if m[2]] + (extra_lifespans or []), app):
                yield
        finally:
            await bridge.stop()

    app = FastAPI(
        title="askbridge",
        version="0.1.0",
        summary="ask_user as a service: agents ask, people answer from any surface.",
        lifespan=lifespan,
    )
    app.state.bridge = bridge
    _install_errors(app)

    @app.get("/healthz", tags=["ops"])
    async def healthz() -> dict[str, Any]:
        return {"ok": bridge.started, "adapters": sorted(bridge.adapters)}

    api = build_routes(bridge.broker, Auth(bridge.broker, agent_tokens(bridge)))
    app.router.routes.extend(api.served)
    for adapter in bridge.adapters.values():
        if isinstance(adapter, Routed):
            app.router.routes.extend(_routes(adapter))
    for path, sub, _ in mounts:
        app.mount(path, sub)

    def openapi() -> dict[str, Any]:
        if not app.openapi_schema:
            channels = bridge.config.section("webhooks") if "webhook" in bridge.adapters else None
            app.openapi_schema = document(app, [*app.routes, *api.docs.routes],
                                          sorted(channels or {}))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return BodyLimit(_exact_mounts(app, [path for path, _, _ in mounts]),
                     bridge.config.server.max_body_bytes)


def _routes(adapter: Routed) -> list[BaseRoute]:
    routes: list[BaseRoute] = []
    for route in adapter.routes():
        if not isinstance(route, BaseRoute):
            raise TypeError(f"{type(adapter).__name__}.routes() gave {route!r}, "
                            "not a Starlette route")
        routes.append(route)
    return routes


def _exact_mounts(app: ASGIApp, paths: list[str]) -> ASGIApp:
    """Serve a mount at its bare path too: DESIGN names `/mcp`, and a 307 to `/mcp/` is not
    followed by every MCP client."""

    async def routed(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] in paths:
            path = scope["path"] + "/"
            scope = {**scope, "path": path, "raw_path": path.encode()}
        await app(scope, receive, send)

    return routed


@asynccontextmanager
async def _nested(lifespans: list[Lifespan], app: FastAPI) -> AsyncIterator[None]:
    if not lifespans:
        yield
        return
    async with lifespans[0](app), _nested(lifespans[1:], app):
        yield
