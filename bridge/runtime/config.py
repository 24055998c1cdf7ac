"""Configuration: the TOML file as pydantic models, and the embedded defaults used without one."""

from __future__ import annotations

import itertools
import json
import os
import secrets
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from bridge.model.adapter import AdapterContext
from bridge.runtime.config_problems import config_problems
from bridge.runtime.durations import Keep, keep_seconds
from bridge.text.i18n import DEFAULT_LOCALE, Locale

Section = TypeVar("Section")


class ConfigError(Exception):
    """The configuration cannot be used; the message says which key and what to change."""


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ServerConfig(_Section):
    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    public_url: str | None = None
    """How people reach this server (login links); defaults to http://host:port."""
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    max_connections: int = Field(default=1000, ge=1)
    """Open client connections at most (lowered to what the descriptor limit allows)."""


class StoreConfig(_Section):
    path: str | None = None
    url: str | None = None
    keep: Keep = "30d"
    """How long an ended question is kept (`90s`, `12h`, `30d`, or `forever`)."""

    @property
    def keep_seconds(self) -> int | None:
        """`keep` in seconds; None keeps every question."""
        return keep_seconds(self.keep)

    @model_validator(mode="after")
    def _one_backend(self) -> StoreConfig:
        if self.path and self.url:
            raise ValueError("Set either store.path (SQLite) or store.url (PostgreSQL), not both.")
        return self


class McpConfig(_Section):
    allowed_origins: list[str] = Field(default_factory=list)
    """Browser origins (scheme://host[:port]) besides the server's own that may call /mcp."""
    sessions_per_agent: int = Field(default=32, ge=1)
    """Live MCP sessions (2025-11-25) one agent may hold; opening one more closes its oldest
    idle one."""
    reattach_seconds: float = Field(default=60, gt=0)
    """2026-07-28: how long a question may have no `ask_user` call waiting on it (the host's
    stream broke or it cancelled) before it is cancelled."""
    state_key_env: str | None = None
    """Environment variable holding the secret that seals 2026-07-28 `requestState` (at least
    32 characters, the same on every replica). Unset: a key made once and kept in the store,
    which every replica sharing that store reads."""


def _ascending(values: list[float], key: str) -> None:
    if any(b <= a for a, b in itertools.pairwise(values)):
        raise ValueError(f"{key} must be in ascending order, each later than the one before "
                         f"(got {values})")


class EscalationTier(_Section):
    """Surfaces that get the prompt `after` seconds past the ask, if nobody answered."""

    after: float = Field(gt=0, description="seconds after the ask")
    surfaces: list[str] = Field(min_length=1)


class AgentConfig(_Section):
    name: str = Field(min_length=1, max_length=64)
    token_env: str
    role: Literal["main", "subagent"] = "main"
    surfaces: list[str] = Field(default_factory=lambda: ["web"])
    remind_after: list[float] = Field(default_factory=list)
    """Seconds after the ask at which every live prompt gets a reminder."""
    escalation: list[EscalationTier] = Field(default_factory=list)
    host_form: Literal["race", "off"] = "race"
    """`race`: an MCP host that declares form elicitation also shows the question in its own
    form, racing the remote surfaces; `off`: never."""
    locale: Locale = DEFAULT_LOCALE
    """The language askbridge writes in around this agent's questions; a platform section's
    (or webhook channel's) own `locale` wins for its surfaces."""

    @model_validator(mode="after")
    def _reach_in_order(self) -> AgentConfig:
        if any(t <= 0 for t in self.remind_after):
            raise ValueError(f"remind_after takes seconds greater than 0 (got {self.remind_after})")
        _ascending(self.remind_after, "remind_after")
        _ascending([t.after for t in self.escalation], "escalation tiers' `after`")
        return self


EventType = Literal["question.created", "question.delivered", "question.reminded",
                    "question.escalated", "question.resolved"]
EVENT_TYPES: tuple[EventType, ...] = get_args(EventType)


class EventHookConfig(_Section):
    """Where question events are POSTed, signed with the secret in `secret_env`."""

    url: str = Field(pattern=r"^https?://")
    secret_env: str
    types: list[EventType] = Field(default_factory=lambda: list(EVENT_TYPES))
    retry_start_seconds: float = Field(default=5.0, gt=0)
    """The first retry's delay; each further one doubles, up to 15 minutes."""


class BridgeConfig(BaseModel):
    """The whole file. Adapter sections (`telegram`, `webhooks`, …) are kept raw for adapters."""

    model_config = ConfigDict(frozen=True, extra="allow")
    server: ServerConfig = ServerConfig()
    store: StoreConfig = StoreConfig()
    mcp: McpConfig = McpConfig()
    agents: list[AgentConfig] = Field(default_factory=list)
    events: list[EventHookConfig] = Field(default_factory=list)
    data_dir: str = ".askbridge"

    @model_validator(mode="after")
    def _unique_agents(self) -> BridgeConfig:
        names = [a.name for a in self.agents]
        if len(names) != len(set(names)):
            raise ValueError("Every [[agents]] entry needs its own name.")
        return self

    def section(self, name: str) -> Mapping[str, Any] | None:
        """A raw adapter table (`web`, `telegram`, `webhooks`), or None when absent."""
        found = (self.model_extra or {}).get(name)
        return found if isinstance(found, Mapping) else None

    def agent_surfaces(self) -> list[str]:
        return [surface for agent in self.agents for surface in agent.surfaces]

    def extra_sections(self) -> list[str]:
        return sorted((self.model_extra or {}).keys())

    @property
    def store_path(self) -> str:
        return self.store.path or str(Path(self.data_dir) / "askbridge.db")

    @property
    def base_url(self) -> str:
        if self.server.public_url:
            return self.server.public_url.rstrip("/")
        host = self.server.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.server.port}"


def load_config(path: str | os.PathLike[str]) -> BridgeConfig:
    """Read and validate a TOML config file."""
    file = Path(path)
    try:
        raw = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"No config file at {file}; create one from config/askbridge.example.toml."
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file} is not valid TOML: {exc}") from exc
    return parse_config(raw, source=str(file))


def parse_config(raw: dict[str, Any], source: str = "config") -> BridgeConfig:
    try:
        return BridgeConfig.model_validate(raw)
    except ValidationError as exc:
        lines = config_problems(exc, BridgeConfig)
        raise ConfigError(f"{source} has problems:\n  " + "\n  ".join(lines)) from exc


def adapter_section(ctx: AdapterContext, name: str, model: type[Section]) -> Section | None:
    """An adapter's config table as its model (a pydantic model, or a type pydantic validates,
    like `dict[str, ChannelConfig]` for a table of tables); None when the table is absent.

    Raises `ConfigError` naming every problem by key (`[telegram] has problems: mode: …`).
    """
    raw = ctx.config.section(name)
    if raw is None:
        return None
    try:
        return TypeAdapter(model).validate_python(raw)
    except ValidationError as exc:
        problems = "; ".join(config_problems(exc, model))
        raise ConfigError(f"[{name}] has problems: {problems}.") from exc


def env_secret(ctx: AdapterContext, var: str, missing: str) -> str:
    """The secret in `$var` (a token, a signing secret); `ConfigError(missing)` when it is not
    set or blank, so every adapter says in its own words where to get it."""
    value = ctx.env.get(var, "")
    if not value.strip():
        raise ConfigError(missing)
    return value


CREDENTIALS_FILE = "credentials.json"
DEFAULT_AGENT_TOKEN_ENV = "ASKBRIDGE_TOKEN"
DEFAULT_WEBHOOK_SECRET_ENV = "ASKBRIDGE_LOCAL_WEBHOOK_SECRET"
DEFAULT_WEB_TOKEN_ENV = "ASKBRIDGE_WEB_TOKEN"


def web_ui(config: BridgeConfig) -> tuple[bool, str]:
    """Whether the web UI is on, and the variable holding its login token: what the startup
    banner says. Read raw with the web adapter's defaults; the web adapter owns `[web]` and
    checks it (before any banner is printed)."""
    web = config.section("web") or {}
    return web.get("enabled", True) is not False, str(web.get("token_env", DEFAULT_WEB_TOKEN_ENV))


def load_credentials(data_dir: str | os.PathLike[str]) -> dict[str, str] | None:
    file = Path(data_dir) / CREDENTIALS_FILE
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else None


def ensure_credentials(data_dir: str | os.PathLike[str]) -> tuple[dict[str, str], bool]:
    """The embedded defaults' secrets, generated once and kept (mode 0600) in the data dir.

    Returns the credentials and whether they were just created.
    """
    folder = Path(data_dir)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)  # askbridge's own folder: its secrets and database are for it alone
    existing = load_credentials(data_dir)
    if existing and {"agent_token", "web_token", "webhook_secret"} <= existing.keys():
        return existing, False
    creds = {
        "agent_token": "ab_" + secrets.token_urlsafe(24),
        "web_token": "abw_" + secrets.token_urlsafe(24),
        "webhook_secret": secrets.token_urlsafe(24),
    }
    file = folder / CREDENTIALS_FILE
    fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(creds, fh, indent=2)
    return creds, True


def embedded_defaults(data_dir: str = ".askbridge") -> BridgeConfig:
    """No config file: SQLite under `.askbridge/`, 127.0.0.1:8765, the web surface, one main agent.

    A local plain-text channel (`webhook:local:console`) prints prompts on the server's console
    and takes replies at `POST /v1/channels/webhook/local` (`askbridge reply` signs and sends them).
    """
    return parse_config(
        {
            "data_dir": data_dir,
            "agents": [
                {
                    "name": "main",
                    "token_env": DEFAULT_AGENT_TOKEN_ENV,
                    "role": "main",
                    "surfaces": ["web", "webhook:local:console"],
                }
            ],
            "webhooks": {"local": {"secret_env": DEFAULT_WEBHOOK_SECRET_ENV}},
        },
        source="embedded defaults",
    )


def default_env(data_dir: str, env: dict[str, str]) -> tuple[dict[str, str], bool]:
    """Fill the embedded defaults' secret variables from the stored credentials."""
    creds, created = ensure_credentials(data_dir)
    merged = dict(env)
    merged.setdefault(DEFAULT_AGENT_TOKEN_ENV, creds["agent_token"])
    merged.setdefault(DEFAULT_WEB_TOKEN_ENV, creds["web_token"])
    merged.setdefault(DEFAULT_WEBHOOK_SECRET_ENV, creds["webhook_secret"])
    return merged, created
