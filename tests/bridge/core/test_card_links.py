"""A signed answer-page link names one question, surface and user, and nothing forged passes."""

from __future__ import annotations

from pathlib import Path

from bridge.core.card_links import LINK_PATH, CardLinks, LinkHolder
from bridge.model.ids import QuestionId, SurfaceId, UserRef
from bridge.store import SqliteStore

QID, SURFACE, USER = QuestionId("q_0123456789abcdef"), SurfaceId("telegram:42"), UserRef("42")


async def _store(tmp_path: Path) -> SqliteStore:
    store = SqliteStore(str(tmp_path / "links.db"))
    await store.open()
    return store


async def test_a_link_names_its_question_surface_and_user(tmp_path: Path) -> None:
    store = await _store(tmp_path)
    try:
        links = CardLinks(store, "https://ask.example.org/")
        url = await links.url(QID, SURFACE, USER)
        assert url.startswith("https://ask.example.org" + LINK_PATH)
        token = url.rsplit("/", 1)[1]
        assert await links.check(token) == LinkHolder(QID, SURFACE, USER)
        # A second replica on the same store reads the same key, so it checks the same link.
        assert await CardLinks(store, "https://other").check(token) == LinkHolder(QID, SURFACE,
                                                                                   USER)
    finally:
        await store.close()


async def test_forged_cut_or_foreign_tokens_are_refused(tmp_path: Path) -> None:
    store, other = await _store(tmp_path), SqliteStore(str(tmp_path / "other.db"))
    await other.open()
    try:
        links = CardLinks(store, "http://127.0.0.1:8765")
        token = await links.token(QID, SURFACE, USER)
        payload, mac = token.split(".")
        elsewhere = await CardLinks(store, "x").token(QID, SURFACE, UserRef("43"))
        refused = [
            token[:-2],  # cut short by a chat client
            f"{elsewhere.split('.')[0]}.{mac}",  # someone else's user under this MAC
            payload, "", "a.b", "!!!.???", token + "x" * 3000,
            await CardLinks(other, "x").token(QID, SURFACE, USER),  # another deployment's key
        ]
        for bad in refused:
            assert await links.check(bad) is None, bad
    finally:
        await store.close()
        await other.close()
