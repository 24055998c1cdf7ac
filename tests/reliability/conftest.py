"""The reliability suite's `figures` fixture (summed up at the end by tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.reliability.figures import Figures


@pytest.fixture
def figures(request: pytest.FixtureRequest) -> Iterator[Figures]:
    assert isinstance(request.node, pytest.Item)
    yield Figures(request.node)
