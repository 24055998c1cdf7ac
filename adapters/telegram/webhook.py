"""Telegram's webhook mode: the secret header checked in constant time, then the update queued."""

from __future__ import annotations

from typing import Any

import structlog
from starlette.requests import Request
from starlette.responses import JSONResponse
from telegram import Update
from telegram.ext import Application

from bridge import BadJson, same_secret
from bridge.http import error_response, read_json

log = structlog.get_logger("askbridge.telegram")
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
WEBHOOK_PATH = "/telegram/webhook"


async def receive(request: Request, secret: str | None,
                  app: Application[Any, Any, Any, Any, Any, Any] | None) -> JSONResponse:
    """One POST /telegram/webhook: 403 without the secret, 503 while starting, 400 for junk."""
    given = request.headers.get(SECRET_HEADER, "")
    if not secret or not same_secret(given, secret):
        log.warning("telegram_webhook_refused")
        return error_response(
            403, f"{SECRET_HEADER} does not match the configured secret.", "header")
    if app is None:
        return error_response(503, "askbridge is starting; Telegram will retry.", "server",
                              code="starting")
    try:
        data = await read_json(request)
        update = Update.de_json(data, app.bot) if isinstance(data, dict) and isinstance(
            data.get("update_id"), int) else None
    except (BadJson, KeyError, TypeError, ValueError, AttributeError):
        update = None  # PTB indexes the fields it expects: a malformed update raises
    if update is None:
        return error_response(400, "Expected a Telegram Update object.", code="invalid_request")
    await app.update_queue.put(update)
    return JSONResponse({"ok": True})
