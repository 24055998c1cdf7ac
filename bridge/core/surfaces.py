"""Where questions go: each surface's adapter, language and prompt, and each agent's policy."""

from __future__ import annotations

from collections.abc import Mapping

from bridge.model.adapter import Adapter
from bridge.model.errors import NotFound
from bridge.model.ids import SurfaceId, surface_platform
from bridge.model.prompt import Asked, Capabilities, Prompt
from bridge.runtime.config import AgentConfig
from bridge.store.records import QuestionRecord, ms_to_dt
from bridge.text.i18n import DEFAULT_LOCALE
from bridge.text.rendering import build_prompt


def asked(record: QuestionRecord) -> Asked:
    """The part of a stored question a prompt is rendered from."""
    return Asked(record.id, record.agent, record.session, tuple(record.request.questions),
                 ms_to_dt(record.expires_at), record.approval)


class Surfaces:
    """The adapters by platform and the agents by name; every prompt is built here, so a
    delivery, a reminder, a finalization and a re-render show the same thing."""

    def __init__(self, adapters: Mapping[str, Adapter], agents: Mapping[str, AgentConfig]) -> None:
        self.adapters = dict(adapters)
        self.agents = dict(agents)

    def adapter_for(self, surface: SurfaceId) -> Adapter | None:
        return self.adapters.get(surface_platform(surface))

    def agent(self, name: str) -> AgentConfig:
        agent = self.agents.get(name)
        if agent is None:
            raise NotFound(f"There is no agent named {name!r}.")
        return agent

    def reaches(self, record: QuestionRecord) -> bool:
        """Whether the asking agent has reminders or escalation tiers configured."""
        agent = self.agents.get(record.agent)
        return agent is not None and bool(agent.remind_after or agent.escalation)

    def _capabilities(self, surface: SurfaceId | None) -> Capabilities | None:
        """What the surface's adapter says of it; None without a surface or an adapter."""
        adapter = self.adapter_for(surface) if surface else None
        return adapter.capabilities(surface) if adapter and surface else None

    def _locale(self, agent: str, caps: Capabilities | None) -> str:
        if caps is not None and caps.locale:
            return caps.locale
        config = self.agents.get(agent)
        return config.locale if config is not None else DEFAULT_LOCALE

    def locale_for(self, agent: str, surface: SurfaceId | None) -> str:
        """The language of a surface: its own config's (reported by its adapter as
        `Capabilities.locale`), else the agent's, else English."""
        return self._locale(agent, self._capabilities(surface))

    def prompt(self, record: QuestionRecord, surface: SurfaceId | None,
               partial: Mapping[str, list[str]] | None = None) -> Prompt:
        """The prompt as `surface` shows it: native or text by its adapter's capabilities, in
        its locale, with `partial` answers (kept selections) shown. Without a surface: the
        agent's language and plain buttons (the web UI's own rendering)."""
        caps = self._capabilities(surface)
        shown = caps or Capabilities(buttons=surface is None)
        return build_prompt(asked(record), shown, self._locale(record.agent, caps), partial)
