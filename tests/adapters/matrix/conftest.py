"""Fixtures for the Matrix tests: one real Synapse per session, a fresh room and bot login per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adapters.matrix.support import Mx, Person, open_room
from tests.adapters.matrix.synapse import Synapse, homeserver


@pytest.fixture(scope="session")
def synapse() -> Synapse:
    return homeserver()


@pytest.fixture(scope="session")
def room(synapse: Synapse) -> str:
    """One room for the session's tests (making a room costs Synapse about a second): each test
    runs its own bridge and store, and looks only at its own question's events."""
    users = synapse.users
    return open_room(synapse, users["person"], users["askbot"], users["stranger"])


@pytest.fixture
def mx(synapse: Synapse, room: str, tmp_path: Path) -> Mx:
    bot, person, stranger = (Person(synapse, synapse.users[n])
                             for n in ("askbot", "person", "stranger"))
    return Mx(synapse, tmp_path, bot, person, stranger, room, synapse.login("askbot"))

