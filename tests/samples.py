"""The suite's sample questions: one single-select, one multi-select, both at once; tests that
need something else say what they change from these."""

from __future__ import annotations

from typing import Any

TARGET: dict[str, Any] = {
    "id": "deploy_target", "header": "Deploy", "question": "Where should I deploy?",
    "options": [{"label": "Staging (Recommended)"}, {"label": "Production"}, {"label": "Canary"}],
}
"""The single-select question: three options, the first recommended."""

CHECKS: dict[str, Any] = {
    "id": "checks", "header": "Checks", "question": "Which checks?", "multiSelect": True,
    "options": [{"label": "Lint"}, {"label": "Test"}, {"label": "Build"}],
}
"""The multi-select question."""

DEPLOY: dict[str, Any] = {"questions": [TARGET]}
"""The sample request: the single-select question alone."""

BOTH: dict[str, Any] = {"questions": [TARGET, CHECKS]}
"""A request of several questions: the single-select, then the multi-select."""


def ask(*questions: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A request of these questions (the sample one if none), with top-level fields such as
    `timeoutSeconds`."""
    return {"questions": list(questions or [TARGET]), **fields}


def with_options(question: dict[str, Any], *labels: str) -> dict[str, Any]:
    """`question` with these option labels instead of its own."""
    return {**question, "options": [{"label": label} for label in labels]}


def described(question: dict[str, Any], descriptions: dict[str, str]) -> dict[str, Any]:
    """`question` with a description on each option `descriptions` names by label."""
    return {**question, "options": [
        {**o, "description": descriptions[o["label"]]} if o["label"] in descriptions else o
        for o in question["options"]]}
