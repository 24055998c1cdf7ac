"""Fixtures for the web surface's tests."""

from tests.adapters.web.browser import browser

__all__ = ["browser"]
