"""The tool's result shapes: what an answered, skipped, expired or cancelled ask hands back."""

from __future__ import annotations

from bridge.model.contract import AskResult


def test_result_shapes_are_the_seeds() -> None:
    assert AskResult.answered({"deploy_target": ["Staging (Recommended)"]}).to_json() == {
        "status": "answered",
        "answers": {"answers": {"deploy_target": {"answers": ["Staging (Recommended)"]}}}}
    assert AskResult.no_answer("expired").to_json() == {"status": "no_answer", "reason": "expired"}
