"""`[[people]]` and `[[approvals]]`: who a platform user is, and who must approve what.

A person counts once however many surfaces they use: every vote is keyed by the person a
surface user resolves to (`ana`), or, for someone no `[[people]]` entry names, by the surface
user itself (`telegram/111`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

PLATFORM_KEYS = ("telegram", "discord", "slack", "matrix", "email", "webhook")


def _listed(value: Any) -> Any:
    """`telegram = 111` and `telegram = [111, 112]` both mean a list of ids, kept as strings."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    return [str(v) for v in items]


class PersonConfig(BaseModel):
    """`[[people]] name = "ana"  telegram = 111  slack = "U01"  webhook = ["sms:+62811"]`."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str = Field(min_length=1, max_length=64)
    telegram: list[str] = Field(default_factory=list)
    discord: list[str] = Field(default_factory=list)
    slack: list[str] = Field(default_factory=list)
    matrix: list[str] = Field(default_factory=list)
    email: list[str] = Field(default_factory=list)
    webhook: list[str] = Field(default_factory=list)
    """`<channel>:<sender>` entries (`sms:+62811`)."""
    web: bool = False
    """The web UI's user is this person (at most one person may say so)."""

    @field_validator(*PLATFORM_KEYS, mode="before")
    @classmethod
    def _ids(cls, value: Any) -> Any:
        return _listed(value)

    @field_validator("webhook", mode="after")
    @classmethod
    def _webhook(cls, value: list[str]) -> list[str]:
        bad = [v for v in value if ":" not in v.strip(":")]
        if bad:
            raise ValueError(f"webhook entries are `<channel>:<sender>` (for example "
                             f"`sms:+62811`), not {bad[0]!r}")
        return value

    @field_validator("email", mode="after")
    @classmethod
    def _email(cls, value: list[str]) -> list[str]:
        return [v.strip().lower() for v in value]


class ApprovalPolicy(BaseModel):
    """`[[approvals]]`: for requests matching `agent`, `tool` and `risk` (each a name or a list;
    left out, anything), `required` of `approvers` must approve; one rejection rejects."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    agent: list[str] = Field(default_factory=list)
    tool: list[str] = Field(default_factory=list)
    risk: list[Literal["low", "medium", "high"]] = Field(default_factory=list)
    approvers: list[str] = Field(default_factory=list)
    """Names from `[[people]]`; empty: any answerer of the surfaces it went to."""
    required: int | Literal["all"] = 1
    exclude_requester: bool = False
    """Four eyes: the requesting agent's `owner` may not approve."""

    @field_validator("agent", "tool", "risk", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        return value if isinstance(value, list) else [value]

    @model_validator(mode="after")
    def _reachable(self) -> ApprovalPolicy:
        if isinstance(self.required, int):
            if self.required < 1:
                raise ValueError("required must be at least 1 (or \"all\")")
            if self.approvers and self.required > len(self.approvers):
                raise ValueError(f"required = {self.required} but only {len(self.approvers)} "
                                 "approvers are listed; list more or require fewer")
            if self.required > 1 and not self.approvers:  # who is who needs [[people]] names
                raise ValueError(f"required = {self.required} needs a list of approvers: "
                                 "without names, one person answering from two surfaces "
                                 "would count as two; list approvers from [[people]]")
        elif not self.approvers:
            raise ValueError('required = "all" needs a list of approvers')
        return self

    def matches(self, agent: str, tool: str | None, risk: str) -> bool:
        return ((not self.agent or agent in self.agent)
                and (not self.tool or (tool is not None and tool in self.tool))
                and (not self.risk or risk in self.risk))

    @property
    def needed(self) -> int:
        """How many approvals decide."""
        return len(self.approvers) if self.required == "all" else int(self.required)


class ApprovalSections(BaseModel):
    """`[[people]]` and `[[approvals]]` of the config file, checked against each other and the
    agents' `owner` (the config model that holds `agents` derives from this)."""

    people: list[PersonConfig] = Field(default_factory=list)
    approvals: list[ApprovalPolicy] = Field(default_factory=list)

    @model_validator(mode="after")
    def _people_known(self) -> Self:
        owners = {a.name: a.owner for a in getattr(self, "agents", [])}
        problems = person_problems(self.people, self.approvals, owners)
        if problems:
            raise ValueError(" ".join(problems))
        return self


def person_problems(people: Sequence[PersonConfig], policies: Sequence[ApprovalPolicy],
                    owners: Mapping[str, str | None]) -> list[str]:
    """Names that must be people but are not, and identities two people claim."""
    names = {p.name for p in people}
    problems: list[str] = []
    if len(names) != len(people):
        problems.append("Every [[people]] entry needs its own name.")
    if sum(p.web for p in people) > 1:
        problems.append("At most one [[people]] entry may say web = true.")
    claimed: dict[tuple[str, str], str] = {}
    for person in people:
        for key in PLATFORM_KEYS:
            for ident in getattr(person, key):
                other = claimed.setdefault((key, ident), person.name)
                if other != person.name:
                    problems.append(f"{key} {ident!r} is listed for both {other!r} and "
                                    f"{person.name!r}; a user is one person.")
    for n, policy in enumerate(policies):
        problems += [f"approvals[{n}].approvers names {a!r}, who is not in [[people]]; add "
                     "them or fix the name." for a in policy.approvers if a not in names]
    problems += [f"The agent {agent!r} has owner = {owner!r}, who is not in [[people]]."
                 for agent, owner in owners.items() if owner is not None and owner not in names]
    for n, policy in enumerate(policies):
        problems += unmeetable(n, policy, people, owners)
    return problems


def unmeetable(n: int, policy: ApprovalPolicy, people: Sequence[PersonConfig],
               owners: Mapping[str, str | None]) -> list[str]:
    """A quorum the policy's approvers could never reach for an agent it matches: the agent's
    owner kept out by four eyes, or approvers with no id anywhere (nobody can vote as them)."""
    if not policy.approvers:
        return []
    named = {p.name: p for p in people}
    silent = [a for a in policy.approvers if a in named and not _reachable(named[a])]
    problems = []
    for agent, owner in owners.items():
        if policy.agent and agent not in policy.agent:
            continue
        barred = owner if policy.exclude_requester and owner in policy.approvers else None
        able = [a for a in policy.approvers if a != barred and a not in silent]
        if len(able) >= policy.needed:
            continue
        why = []
        if barred is not None:
            why.append(f"{barred!r} is the agent's owner and exclude_requester = true keeps "
                       "them from approving")
        if silent:
            why.append(f"{', '.join(map(repr, silent))} have no id on any platform")
        problems.append(
            f"approvals[{n}] can never be met for the agent {agent!r}: required = "
            f"{json.dumps(policy.required)} needs {policy.needed} approvals but only {len(able)} of its "
            f"approvers may approve ({'; '.join(why)}). Require fewer, add approvers, give "
            "them ids" + (", or set exclude_requester = false." if barred else "."))
    return problems


def _reachable(person: PersonConfig) -> bool:
    return person.web or any(getattr(person, key) for key in PLATFORM_KEYS)


class People:
    """Who a surface user is: `person(surface, user)` by the `[[people]]` table."""

    def __init__(self, people: Sequence[PersonConfig]) -> None:
        self.by_name = {p.name: p for p in people}
        self._ids: dict[tuple[str, str], str] = {}
        for p in people:
            for key in PLATFORM_KEYS:
                for ident in getattr(p, key):
                    self._ids[(key, ident)] = p.name
            if p.web:
                self._ids[("web", "web")] = p.name

    def person(self, surface: str, user: str) -> str | None:
        """The person `user` on `surface` is (`webhook:sms:+62811` + `+62811` → `ana`)."""
        platform, _, target = surface.partition(":")
        if platform == "webhook":
            channel = target.partition(":")[0]
            return self._ids.get(("webhook", f"{channel}:{user}"))
        if platform == "email":
            return self._ids.get(("email", user.strip().lower()))
        return self._ids.get((platform, user))

    def reaches(self, name: str, surface: str) -> bool:
        """Whether the person has an id `surface` can show a prompt to and take a vote from."""
        person = self.by_name.get(name)
        if person is None:
            return False
        platform, _, target = surface.partition(":")
        if platform == "web":
            return person.web
        if platform == "webhook":
            channel = target.partition(":")[0]
            return any(w.partition(":")[0] == channel for w in person.webhook)
        return platform in PLATFORM_KEYS and bool(getattr(person, platform))

    def voter(self, surface: str, user: str) -> str:
        """The key a vote counts under: the person, else the platform user."""
        person = self.person(surface, user)
        return person if person is not None else f"{surface.partition(':')[0]}/{user}"

    def answerers(self, section: str, given: Sequence[Any], channel: str | None = None) -> list[Any]:
        """`answerers` of a platform section with person names replaced by their ids there."""
        key = "webhook" if section == "webhooks" else section
        out: list[Any] = []
        for item in given:
            person = self.by_name.get(item) if isinstance(item, str) else None
            if person is None:
                out.append(item)
            elif key == "webhook":
                out += [w.split(":", 1)[1] for w in person.webhook if w.split(":", 1)[0] == channel]
            elif key in PLATFORM_KEYS:
                ids = getattr(person, key)
                out += [int(i) for i in ids] if key == "telegram" and all(
                    i.lstrip("-").isdigit() for i in ids) else ids
        return out

    def named_answerers(self, name: str, raw: Mapping[str, Any]) -> Mapping[str, Any]:
        """A platform section with person names in `answerers` (its own, or each webhook
        channel's) replaced by that person's ids on the platform."""
        if not self.by_name:
            return raw
        if name == "webhooks":
            return {channel: {**table, "answerers": self.answerers(name, table["answerers"],
                                                                   channel)}
                    if isinstance(table, Mapping) and isinstance(table.get("answerers"), list)
                    else table for channel, table in raw.items()}
        if isinstance(raw.get("answerers"), list):
            return {**raw, "answerers": self.answerers(name, raw["answerers"])}
        return raw
