"""Serving: the garbage collector tuned for a long-lived server."""

from __future__ import annotations

import gc

from bridge.server.serve import GC_YOUNG, settle_gc


def test_serve_freezes_what_it_built_and_collects_young_objects_less_often() -> None:
    """Full collections walk every pending question with the event loop stopped; the server
    keeps its startup objects out of them and lets short-lived objects die young."""
    before = gc.get_threshold()
    try:
        settle_gc()
        assert gc.get_threshold() == (GC_YOUNG, before[1], before[2])
        assert GC_YOUNG > before[0]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
