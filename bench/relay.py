"""The floor for any HTTP bridge: HTTP ask in, PTB send out, tap polled, HTTP answer back.

No contract, no store, no routing: the first question's text and labels become an inline
keyboard; the first tap on it answers the blocked request. Same server stack as askbridge
(uvicorn + Starlette) and the same Bot API client (python-telegram-bot), in its own process.

`--db PATH` makes it the *durable* relay: the question's JSON is committed to SQLite (one
aiosqlite INSERT in autocommit mode, the pragmas askbridge's SQLite store opens with) before the
send — the floor for a bridge that keeps a question across a restart, as askbridge does.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiosqlite
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import Application, ApplicationBuilder, CallbackQueryHandler, ContextTypes

PRAGMAS = ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=5000")
"""bridge/store/sqlite_store.py's, in its order."""


async def open_db(path: str) -> aiosqlite.Connection:
    db = await aiosqlite.connect(path, isolation_level=None)
    for pragma in PRAGMAS:
        await db.execute(f"PRAGMA {pragma}")
    await db.execute("CREATE TABLE IF NOT EXISTS questions (id TEXT PRIMARY KEY, body TEXT NOT NULL)")
    return db


def build(base_url: str, token: str, chat_id: int, db_path: str | None = None) -> Starlette:
    waiting: dict[str, asyncio.Future[int]] = {}
    db: aiosqlite.Connection | None = None
    numbers = itertools.count(1)
    tg: Application[Any, Any, Any, Any, Any, Any] = (
        ApplicationBuilder().token(token).base_url(base_url).build())

    async def on_tap(update: Update, _: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None or not query.data:
            return
        key, _sep, index = query.data.rpartition(":")
        future = waiting.pop(key, None)
        if future is not None and not future.done():
            future.set_result(int(index))
        await query.answer()

    tg.add_handler(CallbackQueryHandler(on_tap))

    async def ask(request: Request) -> JSONResponse:
        body = await request.json()
        question = body["questions"][0]
        labels = [o["label"] for o in question["options"]]
        key = f"r{next(numbers)}"
        if db is not None:  # durable: the question is on disk before anyone sees it
            await db.execute("INSERT INTO questions (id, body) VALUES (?, ?)",
                             (key, json.dumps(body)))
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        waiting[key] = future
        markup = InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=f"{key}:{i}")]
                                       for i, label in enumerate(labels)])
        await tg.bot.send_message(chat_id, f"{question['header']}\n{question['question']}",
                                  reply_markup=markup)
        index = await asyncio.wait_for(future, 600)
        return JSONResponse({"status": "answered", "answers": {"answers": {
            question["id"]: {"answers": [labels[index]]}}}})

    async def healthz(_: Request) -> JSONResponse:
        return JSONResponse({"ok": True})

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        nonlocal db
        if db_path is not None:
            db = await open_db(db_path)
        await tg.initialize()
        assert tg.updater is not None
        await tg.updater.start_polling(poll_interval=0, timeout=5)
        await tg.start()
        try:
            yield
        finally:
            await tg.updater.stop()
            await tg.stop()
            await tg.shutdown()
            if db is not None:
                await db.close()

    return Starlette(routes=[Route("/ask", ask, methods=["POST"]),
                             Route("/healthz", healthz)], lifespan=lifespan)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--base-url", required=True, help="the fake's /bot root")
    parser.add_argument("--token", required=True)
    parser.add_argument("--chat", type=int, required=True)
    parser.add_argument("--db", help="commit each question to this SQLite file before sending")
    args = parser.parse_args()
    uvicorn.run(build(args.base_url, args.token, args.chat, args.db), host="127.0.0.1", port=args.port,
                log_config=None, access_log=False, timeout_graceful_shutdown=5)


if __name__ == "__main__":
    main()
