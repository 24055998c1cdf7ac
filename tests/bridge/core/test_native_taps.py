"""Native taps: selections toggle in option order and are partial answers (pure parts)."""

from __future__ import annotations

from typing import Any

from bridge.core.native_taps import ordered, selected
from bridge.model.validation import parse_ask_request
from tests.samples import TARGET, ask, with_options

ZONES: dict[str, Any] = {"id": "zones", "header": "Zones", "question": "Which zones?", "multiSelect": True,
         "options": [{"label": z} for z in ("North", "South", "East", "West")]}
PAIR = with_options(TARGET, "Staging", "Production")
"""The single-select sample with two unadorned options."""


def test_toggles_flip_and_keep_option_order() -> None:
    zones = parse_ask_request({"questions": [ZONES]}).questions[0]
    after = selected(zones, [], (3,), toggle=True)
    after = selected(zones, after, (0,), toggle=True)
    assert after == ["North", "West"]
    assert selected(zones, after, (3,), toggle=True) == ["North"]
    assert selected(zones, ["my own words"], (1,), toggle=True) == ["South"]
    assert selected(zones, after, (2, 1), toggle=False) == ["South", "East"]
    assert selected(zones, after, (), toggle=False) == []


def test_single_select_keeps_one_choice() -> None:
    env = parse_ask_request(ask(PAIR)).questions[0]
    assert selected(env, ["Staging"], (1,), toggle=True) == ["Production"]
    assert selected(env, [], (0, 1), toggle=False) == ["Production"]


def test_ordered_puts_labels_first_then_own_words() -> None:
    zones = parse_ask_request({"questions": [ZONES]}).questions[0]
    assert ordered(zones, [" mars ", "West", "North", "West", ""]) == ["North", "West", "mars"]
