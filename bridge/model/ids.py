"""Typed ids: questions, agents, sessions, surfaces (`telegram:42`), users and message refs."""

from __future__ import annotations

from typing import NewType

QuestionId = NewType("QuestionId", str)
AgentName = NewType("AgentName", str)
SessionKey = NewType("SessionKey", str)
SurfaceId = NewType("SurfaceId", str)
"""`web`, `telegram:<chat>`, `discord:<channel>`, `slack:<channel>`, `webhook:<name>:<conversation>`."""
UserRef = NewType("UserRef", str)
"""A platform user id as a string (`123456789`, `U0123`, a phone number)."""
MessageRef = NewType("MessageRef", str)
"""What an adapter needs to edit a delivered message later (a message id, `channel/ts`, …)."""


def surface_platform(surface: SurfaceId | str) -> str:
    """The platform prefix of a surface id: `telegram` for `telegram:42`."""
    return surface.split(":", 1)[0]


def surface_target(surface: SurfaceId | str) -> str:
    """Everything after the platform prefix: `42` for `telegram:42`, `` for `web`."""
    _, _, rest = surface.partition(":")
    return rest
