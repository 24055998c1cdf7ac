"""Telegram's webhook mode: the secret header checked in constant time, then the update queued."""

from __future__ import annotations

import hmac
import json
from typing import Any

import structlog
from starlette.requests import Request
from starlette.responses import JSONResponse
from telegram import Update
from telegram.ext import Application

log = structlog.get_logger("askbridge.telegram")
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
WEBHOOK_PATH = "/telegram/webhook"


async def receive(request: Request, secret: str | None,
                  app: Application[Any, Any, Any, Any, Any, Any] | None) -> JSONResponse:
    """One POST /telegram/webhook: 403 without the secret, 503 while starting, 400 for junk."""
    given = request.headers.get(SECRET_HEADER, "")
    if not secret or not hmac.compare_digest(given, secret):
        log.warning("telegram_webhook_refused")
        return JSONResponse({"error": "forbidden", "details": [
            {"loc": "header", "msg": f"{SECRET_HEADER} does not match the configured secret."}
        ]}, status_code=403)
    if app is None:
        return JSONResponse({"error": "starting"}, status_code=503)
    try:
        data = json.loads(await request.body())
    except ValueError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
        return JSONResponse({"error": "invalid_request", "details": [
            {"loc": "body", "msg": "Expected a Telegram Update object."}]}, status_code=400)
    await app.update_queue.put(Update.de_json(data, app.bot))
    return JSONResponse({"ok": True})
